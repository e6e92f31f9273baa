using Microsoft.Extensions.Options;

namespace Kobo.Sync.Storage.Purges;

/// <summary>
/// Runs <see cref="TombstonePurge"/> for the tombstones older than <c>Sync:TombstoneRetentionDays</c> (see
/// <see cref="PeriodicPurgeService"/>).
/// </summary>
public sealed partial class TombstonePurgeService(
    TombstonePurge purge,
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    TimeProvider clock,
    ILogger<TombstonePurgeService> logger) : PeriodicPurgeService(readiness, options, clock, logger)
{
    protected override DateTimeOffset Cutoff(
        DateTimeOffset now, SyncOptions settings) => now - TimeSpan.FromDays(settings.TombstoneRetentionDays);

    protected override Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken) =>
        purge.PurgeAsync(cutoff, batchSize, cancellationToken);

    protected override void LogPurged(ILogger logger, int purged, DateTimeOffset cutoff) => Purged(logger, purged, cutoff);

    protected override void LogFailed(ILogger logger, Exception error, int intervalSeconds) => Failed(logger, error, intervalSeconds);

    [LoggerMessage(Level = LogLevel.Information, Message = "Purged {Tombstones} tombstones deleted before {Cutoff:o}")]
    private static partial void Purged(ILogger logger, int tombstones, DateTimeOffset cutoff);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Tombstone purge failed; retrying in {IntervalSeconds} s")]
    private static partial void Failed(ILogger logger, Exception error, int intervalSeconds);
}
