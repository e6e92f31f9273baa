using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// The hosted job that runs <see cref="RevocationPurge"/> every <c>Sync:PurgeIntervalSeconds</c>, once
/// storage is ready, for the revocations made more than <see cref="DeviceTokenOptions.RevocationLifetime"/>
/// ago. Several instances may run it at once: each batch skips rows another holds. A failed run is
/// logged and retried at the next interval; it never stops the service. Each instance forgets the
/// same revocations from its memory on its own (<see cref="DeviceRevocationRefresher"/>).
/// </summary>
internal sealed class RevocationPurgeService(
    RevocationPurge purge,
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    IOptions<DeviceTokenOptions> tokenOptions,
    TimeProvider clock,
    ILogger<RevocationPurgeService> logger) : BackgroundService
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
        var cutoff = clock.GetUtcNow() - tokenOptions.Value.RevocationLifetime;
        try
        {
            var purged = await purge.PurgeAsync(cutoff, settings.PurgeBatchSize, stoppingToken).ConfigureAwait(false);
            if (purged > 0)
            {
                logger.LogInformation("Purged {Revocations} device revocations made before {Cutoff:o}", purged, cutoff);
            }
        }
        catch (Exception error) when (error is not OperationCanceledException || !stoppingToken.IsCancellationRequested)
        {
            logger.LogWarning(error, "Revocation purge failed; retrying in {IntervalSeconds} s", settings.PurgeIntervalSeconds);
        }
    }
}
