using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Purges;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Runs <see cref="RevocationPurge"/> for the revocations made more than
/// <see cref="DeviceTokenOptions.RevocationLifetime"/> ago (see <see cref="PeriodicPurgeService"/>).
/// Each instance forgets the same revocations from its memory on its own (<see cref="DeviceRevocationRefresher"/>).
/// </summary>
internal sealed partial class RevocationPurgeService(
    RevocationPurge purge,
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    IOptions<DeviceTokenOptions> tokenOptions,
    TimeProvider clock,
    ILogger<RevocationPurgeService> logger) : PeriodicPurgeService(readiness, options, clock, logger)
{
    protected override DateTimeOffset Cutoff(DateTimeOffset now, SyncOptions settings) => now - tokenOptions.Value.RevocationLifetime;

    protected override Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken) =>
        purge.PurgeAsync(cutoff, batchSize, cancellationToken);

    protected override void LogPurged(ILogger logger, int purged, DateTimeOffset cutoff) => Purged(logger, purged, cutoff);

    protected override void LogFailed(ILogger logger, Exception error, int intervalSeconds) => Failed(logger, error, intervalSeconds);

    [LoggerMessage(Level = LogLevel.Information, Message = "Purged {Revocations} device revocations made before {Cutoff:o}")]
    private static partial void Purged(ILogger logger, int revocations, DateTimeOffset cutoff);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Revocation purge failed; retrying in {IntervalSeconds} s")]
    private static partial void Failed(ILogger logger, Exception error, int intervalSeconds);
}
