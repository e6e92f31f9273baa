using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// The Kobo annotation endpoints' store (statements in <see cref="KoboAnnotationQueries"/>); every call runs
/// in its storage pipeline through <see cref="ResilientKoboAnnotationStore"/>. The reads run on the primary:
/// a device's download follows its own PATCH.
/// </summary>
public sealed class PostgresKoboAnnotationStore(NpgsqlDataSource dataSource) : IKoboAnnotationStore
{
    public async Task<bool> OwnsBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboAnnotationQueries.OwnsBook);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book.Value });
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is not null;
    }

    public async Task RecordReceivedAsync(UserNo user, string eReader, BookNo book, bool withheld, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboAnnotationQueries.RecordReceived);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = eReader });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book.Value });
        command.Parameters.Add(new NpgsqlParameter<bool> { TypedValue = withheld });
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    public async Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(
        UserNo user, string eReader, IReadOnlyCollection<BookNo> books, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var command = StatesCommand(connection, user, eReader, books);
        return await ReadStatesAsync(command, cancellationToken).ConfigureAwait(false);
    }

    public async Task<KoboBookAnnotations> ReadBookAsync(
        UserNo user, string eReader, BookNo book, int limit, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(
            System.Data.IsolationLevel.RepeatableRead, cancellationToken).ConfigureAwait(false);
        // One snapshot: the set and the state its ETag is made of must agree.
        await using var states = StatesCommand(connection, user, eReader, [book]);
        var state = (await ReadStatesAsync(states, cancellationToken).ConfigureAwait(false)).Single();
        var range = HighlightRange.ForBook(user, book);
        await using var read = new NpgsqlCommand(KoboAnnotationQueries.LocatedHighlights, connection)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = range.After },
                new NpgsqlParameter<string> { TypedValue = range.Before },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        };
        var highlights = new List<HighlightView>();
        await using (var reader = await read.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                highlights.Add(new HighlightView(
                    reader.GetString(0), reader.GetInt64(1), reader.GetString(2), reader.GetInt32(3), reader.GetInt32(4),
                    reader.GetString(5), reader.IsDBNull(6) ? null : reader.GetString(6),
                    reader.GetFieldValue<DateTimeOffset>(7), reader.GetFieldValue<DateTimeOffset>(8), reader.GetString(9)));
            }
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        return new KoboBookAnnotations(state, highlights);
    }

    private static NpgsqlCommand StatesCommand(
        NpgsqlConnection connection, UserNo user, string eReader, IReadOnlyCollection<BookNo> books) =>
        new(KoboAnnotationQueries.BookStates, connection)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = eReader },
                new NpgsqlParameter
                {
                    NpgsqlDbType = NpgsqlDbType.Array | NpgsqlDbType.Bigint, Value = books.Select(b => b.Value).ToArray(),
                },
            },
        };

    private static async Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(NpgsqlCommand command, CancellationToken cancellationToken)
    {
        var states = new List<KoboBookState>();
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            states.Add(new KoboBookState(
                new BookNo(reader.GetInt64(0)), reader.GetBoolean(1), reader.GetBoolean(2),
                reader.GetBoolean(3), reader.GetInt64(4), reader.GetInt32(5)));
        }

        return states;
    }
}
