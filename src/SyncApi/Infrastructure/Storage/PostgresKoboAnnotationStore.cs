using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// The Kobo annotation endpoints' store (statements in <see cref="KoboAnnotationQueries"/>), every call in
/// its storage pipeline. The reads run on the primary: a device's download follows its own PATCH.
/// </summary>
public sealed class PostgresKoboAnnotationStore(NpgsqlDataSource dataSource, StoragePipelines pipelines) : IKoboAnnotationStore
{
    public Task<bool> OwnsBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user, book),
            static async (s, ct) =>
            {
                await using var command = s.dataSource.CreateCommand(KoboAnnotationQueries.OwnsBook);
                command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = s.user.Value });
                command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = s.book.Value });
                return await command.ExecuteScalarAsync(ct).ConfigureAwait(false) is not null;
            },
            cancellationToken);

    public Task RecordReceivedAsync(UserNo user, string reader, BookNo book, bool withheld, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (dataSource, user, reader, book, withheld),
            static async (s, ct) =>
            {
                await using var command = s.dataSource.CreateCommand(KoboAnnotationQueries.RecordReceived);
                command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = s.user.Value });
                command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = s.reader });
                command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = s.book.Value });
                command.Parameters.Add(new NpgsqlParameter<bool> { TypedValue = s.withheld });
                await command.ExecuteNonQueryAsync(ct).ConfigureAwait(false);
                return true;
            },
            cancellationToken);

    public Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(
        UserNo user, string reader, IReadOnlyCollection<BookNo> books, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user, reader, books),
            static async (s, ct) =>
            {
                await using var connection = await s.dataSource.OpenConnectionAsync(ct).ConfigureAwait(false);
                await using var command = StatesCommand(connection, s.user, s.reader, s.books);
                return await ReadStatesAsync(command, ct).ConfigureAwait(false);
            },
            cancellationToken);

    public Task<KoboBookAnnotations> ReadBookAsync(UserNo user, string reader, BookNo book, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user, reader, book, limit),
            static async (s, ct) =>
            {
                await using var connection = await s.dataSource.OpenConnectionAsync(ct).ConfigureAwait(false);
                await using var transaction = await connection.BeginTransactionAsync(System.Data.IsolationLevel.RepeatableRead, ct).ConfigureAwait(false);
                // One snapshot: the set and the state its ETag is made of must agree.
                await using var states = StatesCommand(connection, s.user, s.reader, [s.book]);
                var state = (await ReadStatesAsync(states, ct).ConfigureAwait(false)).Single();
                var range = HighlightRange.ForBook(s.user, s.book);
                await using var read = new NpgsqlCommand(KoboAnnotationQueries.LocatedHighlights, connection)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = s.user.Value },
                        new NpgsqlParameter<string> { TypedValue = range.After },
                        new NpgsqlParameter<string> { TypedValue = range.Before },
                        new NpgsqlParameter<int> { TypedValue = s.limit },
                    },
                };
                var highlights = new List<HighlightView>();
                await using (var reader = await read.ExecuteReaderAsync(ct).ConfigureAwait(false))
                {
                    while (await reader.ReadAsync(ct).ConfigureAwait(false))
                    {
                        highlights.Add(new HighlightView(
                            reader.GetString(0), reader.GetInt64(1), reader.GetString(2), reader.GetInt32(3), reader.GetInt32(4),
                            reader.GetString(5), reader.IsDBNull(6) ? null : reader.GetString(6),
                            reader.GetFieldValue<DateTimeOffset>(7), reader.GetFieldValue<DateTimeOffset>(8), reader.GetString(9)));
                    }
                }

                await transaction.CommitAsync(ct).ConfigureAwait(false);
                return new KoboBookAnnotations(state, highlights);
            },
            cancellationToken);

    private static NpgsqlCommand StatesCommand(NpgsqlConnection connection, UserNo user, string reader, IReadOnlyCollection<BookNo> books) =>
        new(KoboAnnotationQueries.BookStates, connection)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = reader },
                new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Array | NpgsqlDbType.Bigint, Value = books.Select(b => b.Value).ToArray() },
            },
        };

    private static async Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(NpgsqlCommand command, CancellationToken cancellationToken)
    {
        var states = new List<KoboBookState>();
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            states.Add(new KoboBookState(
                new BookNo(reader.GetInt64(0)), reader.GetBoolean(1), reader.GetBoolean(2), reader.GetBoolean(3), reader.GetInt64(4), reader.GetInt32(5)));
        }

        return states;
    }
}
