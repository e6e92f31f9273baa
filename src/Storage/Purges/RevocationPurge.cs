using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Purges;

/// <summary>
/// Removes lapsed device revocations (made longer ago than a token may live), and the Kobo links revoked
/// as long ago, in batches of short transactions that skip rows held by device calls. Run by
/// the web host's <c>RevocationPurgeService</c>. A purged link's secret is answered as an unknown one: 401.
/// </summary>
public sealed class RevocationPurge(NpgsqlDataSource dataSource)
{
    /// <summary>
    /// Removes the revocations made before <paramref name="cutoff"/>, batch by batch until a batch comes back short; returns how many.
    /// </summary>
    public async Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken) =>
        await PurgeBatches.RunAsync(dataSource, DeviceQueries.PurgeRevocations, cutoff, batchSize, cancellationToken).ConfigureAwait(false)
        + await PurgeBatches.RunAsync(dataSource, KoboLinkQueries.PurgeRevoked, cutoff, batchSize, cancellationToken).ConfigureAwait(false);
}
