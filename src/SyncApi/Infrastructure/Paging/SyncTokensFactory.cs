using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Paging;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>
/// Sync tokens are signed with the page cursor key (<see cref="CursorKey"/>, <c>Paging:CursorKey</c>, checked at start): one
/// secret to manage; the tags are domain-separated, so a cursor never passes as a token.
/// </summary>
internal static class SyncTokensFactory
{
    public static SyncTokens Create(IServiceProvider services) => new(Key(services));

    /// <summary>The device list's cursors, signed with the same key in a domain of their own.</summary>
    public static DeviceCursors CreateDeviceCursors(IServiceProvider services) => new(Key(services));

    private static byte[] Key(IServiceProvider services) => services.GetRequiredService<CursorKey>().Bytes;

    /// <summary>The sync rules from <c>Sync</c> (highlight quota included); a revocation lasts as long as <c>Auth</c> lets a token live.</summary>
    public static SyncSettings Settings(IServiceProvider services)
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
        };
    }
}
