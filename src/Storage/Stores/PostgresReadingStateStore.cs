using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Standbys;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Reading states on PostgreSQL (statements in <see cref="ReadingStateQueries"/>). A put is one
/// transaction that takes the user's change sequence, checks ownership, loads the stored state and, when
/// the rule changed something, stores the decided state, and once committed tells <paramref name="signals"/>
/// (live pull), as a highlight push does.
/// A read goes to a standby only when it has the user's last write (<see cref="StandbyReads"/>), so a
/// device reads its own put.
/// </summary>
public sealed class PostgresReadingStateStore(
    NpgsqlDataSource dataSource, ICommitSignals? signals = null, StandbyReads? standbyReads = null)
    : IReadingStateStore
{
    private readonly StandbyReads _reads = standbyReads ?? StandbyReads.PrimaryOnly(dataSource);

    public Task<ReadingStateLookup> GetAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        _reads.ReadAsync(
            user, written: 0, (User: user, Book: book),
            static (source, check, a, ct) => GetAsync(source, check, a.User, a.Book, ct), cancellationToken);

    private static async Task<ReadingStateLookup> GetAsync(
        NpgsqlDataSource source, StandbyCheck? check, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var connection = await source.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        if (check is null)
        {
            return await LoadAsync(connection, null, user, book, cancellationToken).ConfigureAwait(false);
        }

        await using var batch = new NpgsqlBatch(connection)
        {
            BatchCommands = { StandbyCheck.FirstCommand(check, user), LoadCommand(user, book) },
        };
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        await StandbyCheck.ReadFirstAsync(reader, check, cancellationToken).ConfigureAwait(false);
        return check.Refused || !await reader.NextResultAsync(cancellationToken).ConfigureAwait(false)
            ? ReadingStateLookup.UnknownUser // not used when refused: the primary answers
            : await ReadLookupAsync(reader, book, cancellationToken).ConfigureAwait(false);
    }

    public async Task<ReadingStateLookup> ApplyAsync(
        UserNo user, BookNo book, Func<ReadingState?, ReadingStateDecision> decide, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        if (await ChangeSequences.TakeAsync(connection, transaction, user, 1, cancellationToken).ConfigureAwait(false) is not { } seq)
        {
            return ReadingStateLookup.UnknownUser;
        }

        var lookup = await LoadAsync(connection, transaction, user, book, cancellationToken).ConfigureAwait(false);
        if (lookup.Access != BookAccess.Owned)
        {
            return lookup;
        }

        var decision = decide(lookup.State);
        if (decision.Writes)
        {
            var state = decision.State;
            var store = new NpgsqlBatchCommand(ReadingStateQueries.Store)
            {
                Parameters =
                {
                    new NpgsqlParameter<long> { TypedValue = user.Value },
                    new NpgsqlParameter<long> { TypedValue = book.Value },
                    Nullable(NpgsqlDbType.Double, state.Position?.Percent),
                    Nullable(NpgsqlDbType.Text, state.Position?.Location),
                    Nullable(NpgsqlDbType.TimestampTz, state.Position?.ModifiedAt.ToUniversalTime()),
                    Nullable(NpgsqlDbType.Text, state.Status?.Value),
                    Nullable(NpgsqlDbType.TimestampTz, state.Status?.ModifiedAt.ToUniversalTime()),
                    Nullable(NpgsqlDbType.Integer, state.Statistics?.TimeSpentMinutes),
                    Nullable(NpgsqlDbType.TimestampTz, state.Statistics?.ModifiedAt.ToUniversalTime()),
                    new NpgsqlParameter<long> { TypedValue = seq },
                },
            };
            await using var batch = new NpgsqlBatch(connection, transaction) { BatchCommands = { store } };
            await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await transaction.CommitAndSignalAsync(signals, user, decision.Writes ? seq : null, cancellationToken).ConfigureAwait(false);
        return lookup;
    }

    private static async Task<ReadingStateLookup> LoadAsync(
        NpgsqlConnection connection, NpgsqlTransaction? transaction, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var load = new NpgsqlBatch(connection, transaction) { BatchCommands = { LoadCommand(user, book) } };
        await using var reader = await load.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await ReadLookupAsync(reader, book, cancellationToken).ConfigureAwait(false);
    }

    private static NpgsqlBatchCommand LoadCommand(UserNo user, BookNo book) => new(ReadingStateQueries.Load)
    {
        Parameters =
        {
            new NpgsqlParameter<long> { TypedValue = user.Value },
            new NpgsqlParameter<long> { TypedValue = book.Value },
        },
    };

    private static async Task<ReadingStateLookup> ReadLookupAsync(NpgsqlDataReader reader, BookNo book, CancellationToken cancellationToken)
    {
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return ReadingStateLookup.UnknownUser;
        }

        return reader.GetBoolean(0)
            ? new ReadingStateLookup(BookAccess.Owned, ReadingStateRows.Read(reader, 1, book))
            : ReadingStateLookup.NotOwned;
    }

    private static NpgsqlParameter Nullable(NpgsqlDbType type, object? value) =>
        new() { NpgsqlDbType = type, Value = value ?? DBNull.Value };
}
