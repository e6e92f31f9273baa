using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Stores;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Keeps <see cref="DeviceRevocationList"/> in step with the store: every revocation in force before
/// the service takes requests (or, when the store was down at start, once it is migrated), then new
/// revocations (made by other instances) every <c>Sync:RevocationRefreshSeconds</c>. Each poll re-reads
/// a minute before the newest revocation it knows, so one committed late is not missed; applying a
/// revocation twice changes nothing. Each poll also forgets the revocations that have lapsed
/// (older than <see cref="DeviceTokenOptions.RevocationLifetime"/>), as the store's purge removes them.
/// <para>
/// Each poll also reads the Kobo links revoked lately (explicitly, or replaced beyond a user's bounds)
/// and drops them from <see cref="KoboLinkCache"/>: a link cached here stops working within the refresh
/// period of its revocation anywhere. Only the revocations a cached entry could predate matter: those
/// within a cache entry's lifetime and the overlap.
/// </para>
/// </summary>
internal sealed class DeviceRevocationRefresher(
    PostgresRevocationReads store,
    DeviceRevocationList revocations,
    KoboLinkCache links,
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    IOptions<DeviceTokenOptions> tokenOptions,
    TimeProvider clock,
    ILogger<DeviceRevocationRefresher> logger) : BackgroundService
{
    private static readonly TimeSpan Overlap = TimeSpan.FromMinutes(1);
    private DateTimeOffset _since = DateTimeOffset.UnixEpoch;
    private DateTimeOffset _linksSince = DateTimeOffset.UnixEpoch;
    private volatile bool _loaded;

    public override async Task StartAsync(CancellationToken cancellationToken)
    {
        // Registered after StorageStartup: when the store came up, the schema is migrated and the
        // list is loaded before requests are taken. When it did not, the loop below loads it as soon
        // as the migrations have run (until then device calls are answered 503 anyway).
        if (readiness.Migrated)
        {
            await TryRefreshAsync(cancellationToken).ConfigureAwait(false);
        }

        await base.StartAsync(cancellationToken).ConfigureAwait(false);
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var interval = TimeSpan.FromSeconds(options.Value.RevocationRefreshSeconds);
        try
        {
            while (!stoppingToken.IsCancellationRequested)
            {
                await Task.Delay(_loaded ? interval : TimeSpan.FromSeconds(1), clock, stoppingToken).ConfigureAwait(false);
                if (readiness.Migrated)
                {
                    await TryRefreshAsync(stoppingToken).ConfigureAwait(false);
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    private async Task TryRefreshAsync(CancellationToken cancellationToken)
    {
        try
        {
            await RefreshAsync(cancellationToken).ConfigureAwait(false);
            _loaded = true;
        }
        catch (Exception error) when (error is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            logger.LogWarning(error, "Refreshing revoked devices failed; retrying");
        }
    }

    private async Task RefreshAsync(CancellationToken cancellationToken)
    {
        var inForceSince = clock.GetUtcNow() - tokenOptions.Value.RevocationLifetime;
        revocations.ForgetBefore(inForceSince);
        _since = _since > inForceSince ? _since : inForceSince;
        // The devices' read gives its pooled connection back before the links are read: holding one
        // connection while waiting for a second would stall every poll on a small or exhausted pool.
        var newest = await store.RevokedDevicesSinceAsync(_since, revocations.Revoke, cancellationToken).ConfigureAwait(false);

        _since = newest - Overlap > _since ? newest - Overlap : _since;
        await RefreshLinksAsync(cancellationToken).ConfigureAwait(false);
    }

    private async Task RefreshLinksAsync(CancellationToken cancellationToken)
    {
        var now = clock.GetUtcNow();
        var relevantSince = now - KoboLinkCache.Lifetime - Overlap;
        _linksSince = _linksSince > relevantSince ? _linksSince : relevantSince;
        var (hashes, newest) = await store.RevokedLinksSinceAsync(_linksSince, cancellationToken).ConfigureAwait(false);
        foreach (var hash in hashes)
        {
            links.Revoke(Convert.ToHexString(hash), now);
        }

        if (newest is { } latest && latest - Overlap > _linksSince)
        {
            _linksSince = latest - Overlap;
        }
    }
}
