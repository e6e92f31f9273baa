using Kobo.Sync.Domain.Ids;
using Npgsql;

namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// How every write of a user's sync data starts (<see cref="ChangeSeqQueries.TakeChangeSeq"/>): it takes
/// <c>count</c> numbers of the user's change sequence, and with them the user's row lock, held to commit
/// (one that changed something is told to live pull after its commit, <see cref="ICommitSignals"/>). And
/// where the sequence stands, which a sync that finds nothing new reads alone.
/// </summary>
public static class ChangeSequences
{
    /// <summary>The last of the numbers taken, or null when the user does not exist.</summary>
    public static async Task<long?> TakeAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, UserNo user, long count, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(ChangeSeqQueries.TakeChangeSeq, connection, transaction)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = count },
            },
        };
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) as long?;
    }

    /// <summary>
    /// Where the user's change sequence stands: every change numbered up to it is committed. Null when the user does not exist.
    /// </summary>
    public static async Task<long?> ReadCommittedAsync(NpgsqlDataSource dataSource, UserNo user, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(ChangeSeqQueries.CommittedSeq);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is long seq ? seq : null;
    }
}
