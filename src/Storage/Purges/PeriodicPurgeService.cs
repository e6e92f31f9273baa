using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.Storage.Purges;

/// <summary>
/// A hosted job that purges rows older than a cutoff every <c>Sync:PurgeIntervalSeconds</c>, once
/// storage is ready, in batches of <c>Sync:PurgeBatchSize</c>. Several instances may run it at once:
/// each batch skips rows another holds. A failed run is logged and retried at the next interval; it
/// never stops the service.
/// </summary>
public abstract class PeriodicPurgeService(
    StorageReadiness readiness,
    IOptions<SyncOptions> options,
    TimeProvider clock,
    ILogger logger) : BackgroundService
{
    /// <summary>Rows older than this go.</summary>
    protected abstract DateTimeOffset Cutoff(DateTimeOffset now, SyncOptions settings);

    protected abstract Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken);

    protected abstract void LogPurged(ILogger logger, int purged, DateTimeOffset cutoff);

    protected abstract void LogFailed(ILogger logger, Exception error, int intervalSeconds);

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
        var cutoff = Cutoff(clock.GetUtcNow(), settings);
        try
        {
            var purged = await PurgeAsync(cutoff, settings.PurgeBatchSize, stoppingToken).ConfigureAwait(false);
            if (purged > 0)
            {
                LogPurged(logger, purged, cutoff);
            }
        }
        catch (Exception error) when (error is not OperationCanceledException || !stoppingToken.IsCancellationRequested)
        {
            LogFailed(logger, error, settings.PurgeIntervalSeconds);
        }
    }
}

/// <summary>The batch loop of a purge: one statement per short transaction, until a batch comes back short.</summary>
public static class PurgeBatches
{
    /// <summary>
    /// Runs batches of <paramref name="sql"/> (parameters: the cutoff, the batch size) until one deletes fewer than
    /// <paramref name="batchSize"/>; returns how many in all.
    /// </summary>
    public static async Task<int> RunAsync(
        NpgsqlDataSource dataSource, string sql, DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var total = 0;
        while (true)
        {
            var purged = await RunOneAsync(dataSource, sql, cutoff, batchSize, cancellationToken).ConfigureAwait(false);
            total += purged;
            if (purged < batchSize)
            {
                return total;
            }
        }
    }

    /// <summary>One batch, one transaction; returns how many rows it deleted.</summary>
    private static async Task<int> RunOneAsync(
        NpgsqlDataSource dataSource, string sql, DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(sql);
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = cutoff.ToUniversalTime() });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = batchSize });
        return (int)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!;
    }
}
