using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Purges;

/// <summary>
/// Removes tombstones (deleted highlights and deleted collections) older than the retention, in batches of short transactions that skip
/// rows locked by device writes. Run by <see cref="TombstonePurgeService"/> (pg_cron is not assumed).
/// </summary>
public sealed class TombstonePurge(NpgsqlDataSource dataSource)
{
    /// <summary>
    /// Deletes expired tombstones (highlights, then collections) batch by batch until a batch comes back short; returns how many.
    /// </summary>
    public async Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken) =>
        await PurgeBatches.RunAsync(
            dataSource, TombstoneQueries.PurgeHighlights, cutoff, batchSize, cancellationToken).ConfigureAwait(false)
        + await PurgeBatches.RunAsync(
            dataSource, TombstoneQueries.PurgeCollections, cutoff, batchSize, cancellationToken).ConfigureAwait(false);
}
