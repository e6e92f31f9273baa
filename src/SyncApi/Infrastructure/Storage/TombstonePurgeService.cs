using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// The hosted job that runs <see cref="TombstonePurge"/> every <c>Sync:PurgeIntervalSeconds</c>, once
/// storage is ready. Several instances may run it at once: each batch skips rows another holds. A
/// failed run is logged and retried at the next interval; it never stops the service.
/// </summary>
internal sealed class TombstonePurgeService(
    TombstonePurge purge,
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    TimeProvider clock,
    ILogger<TombstonePurgeService> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var settings = options.Value;
        var interval = TimeSpan.FromSeconds(settings.PurgeIntervalSeconds);
        try
        {
            while (!stoppingToken.IsCancellationRequested)
            {
                if (readiness.Seeded)
                {
                    await RunOnceAsync(settings, stoppingToken).ConfigureAwait(false);
                }

                await Task.Delay(readiness.Seeded ? interval : TimeSpan.FromSeconds(1), clock, stoppingToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    private async Task RunOnceAsync(SyncOptions settings, CancellationToken stoppingToken)
    {
        var cutoff = clock.GetUtcNow() - TimeSpan.FromDays(settings.TombstoneRetentionDays);
        try
        {
            var purged = await purge.PurgeAsync(cutoff, settings.PurgeBatchSize, stoppingToken).ConfigureAwait(false);
            if (purged > 0)
            {
                logger.LogInformation("Purged {Tombstones} tombstones deleted before {Cutoff:o}", purged, cutoff);
            }
        }
        catch (Exception error) when (error is not OperationCanceledException || !stoppingToken.IsCancellationRequested)
        {
            logger.LogWarning(error, "Tombstone purge failed; retrying in {IntervalSeconds} s", settings.PurgeIntervalSeconds);
        }
    }
}
