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
    public async Task<int> PurgeAsync(DateTimeOffset cutoff, int batchSize, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var total = 0;
        while (true)
        {
            await using var command = dataSource.CreateCommand(SyncQueries.PurgeRevocations);
            command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = cutoff.ToUniversalTime() });
            command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = batchSize });
            var purged = (int)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!;
            total += purged;
            if (purged < batchSize)
            {
                return total;
            }
        }
    }
}
