using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The domain's view of section <c>Sync</c>.</summary>
internal static class SyncSettingsFactory
{
    /// <summary>
    /// The sync rules from <c>Sync</c> (highlight quota included); a revocation lasts as long as <c>Auth</c> lets a token live.
    /// </summary>
    public static SyncSettings Create(IServiceProvider services)
    {
        var sync = services.GetRequiredService<IOptions<SyncOptions>>().Value;
        return new SyncSettings(
            TimeSpan.FromSeconds(sync.MaxClockSkewSeconds),
            sync.MaxDevicesPerUser,
            services.GetRequiredService<IOptions<DeviceTokenOptions>>().Value.RevocationLifetime)
        {
            MaxHighlightsPerUser = sync.MaxHighlightsPerUser,
            MaxHighlightBytesPerUser = sync.MaxHighlightBytesPerUser,
            MaxCollectionsPerUser = sync.MaxCollectionsPerUser,
            MaxBooksPerCollection = sync.MaxBooksPerCollection,
            MaxTombstonesPerUser = sync.MaxTombstonesPerUser,
            MaxStoredCollectionsPerUser = sync.MaxStoredCollectionsPerUser,
            MaxBookRegistersPerCollection = sync.MaxBookRegistersPerCollection,
        };
    }
}
