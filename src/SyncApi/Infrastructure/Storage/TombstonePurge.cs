using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Removes tombstones older than the retention, in batches of short transactions that skip rows
/// locked by device writes. Run by <see cref="TombstonePurgeService"/> (pg_cron is not assumed).
/// </summary>
public sealed class TombstonePurge(NpgsqlDataSource dataSource)
{
    /// <summary>Deletes expired tombstones batch by batch until a batch comes back short; returns how many.</summary>
    public async Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var total = 0;
        while (true)
        {
            var purged = await PurgeBatchAsync(cutoff, batchSize, cancellationToken).ConfigureAwait(false);
            total += purged;
            if (purged < batchSize)
            {
                return total;
            }
        }
    }

    /// <summary>One batch, one transaction; returns how many tombstones it deleted.</summary>
    public async Task<int> PurgeBatchAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(SyncQueries.PurgeTombstones);
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = cutoff.ToUniversalTime() });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = batchSize });
        return (int)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!;
    }
}
