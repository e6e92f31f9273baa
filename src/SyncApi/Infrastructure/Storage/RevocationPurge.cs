using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Removes lapsed device revocations (made longer ago than a token may live), in batches of short
/// transactions that skip rows held by device calls. Run by <see cref="RevocationPurgeService"/>.
/// </summary>
public sealed class RevocationPurge(NpgsqlDataSource dataSource)
{
    /// <summary>Removes the revocations made before <paramref name="cutoff"/>, batch by batch until a batch comes back short; returns how many.</summary>
    public Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken) =>
        PurgeBatches.RunAsync(dataSource, SyncQueries.PurgeRevocations, cutoff, batchSize, cancellationToken);
}
