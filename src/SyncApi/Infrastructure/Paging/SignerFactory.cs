using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>
/// Builds the signing key, the three signers that use it (page cursors, the device list's cursors and
/// sync tokens, each in a domain of its own, so none passes for another) and the page budget from
/// <see cref="PagingOptions"/> (checked at start by <see cref="PagingOptionsValidator"/>).
/// </summary>
internal static class SignerFactory
{
    /// <summary>The signing key, from <c>Paging:CursorKey</c>; a random one, with a warning, when it is not set.</summary>
    public static CursorKey CreateKey(IServiceProvider services)
    {
        var options = services.GetRequiredService<IOptions<PagingOptions>>().Value;
        if (string.IsNullOrEmpty(options.CursorKey))
        {
            services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(SignerFactory))
                .LogWarning(
                    "Paging:CursorKey is not set: page cursors are signed with a random key and stop working when this process restarts");
            return new CursorKey(RandomNumberGenerator.GetBytes(32));
        }

        return new CursorKey(Encoding.UTF8.GetBytes(options.CursorKey));
    }

    public static PageCursors CreatePageCursors(IServiceProvider services) => new(Key(services));

    public static SyncTokens CreateSyncTokens(IServiceProvider services) => new(Key(services));

    public static DeviceCursors CreateDeviceCursors(IServiceProvider services) => new(Key(services));

    /// <summary>The byte budget of a page, from <c>Paging:MaxPageBytes</c>.</summary>
    public static PageBudget CreateBudget(IServiceProvider services) =>
        new(services.GetRequiredService<IOptions<PagingOptions>>().Value.MaxPageBytes);

    private static byte[] Key(IServiceProvider services) => services.GetRequiredService<CursorKey>().Bytes;
}
