using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Library sync's reads on PostgreSQL (<see cref="LibraryQueries"/>), each in its storage pipeline, on
/// the primary: a device archiving a book reads its library right after. A page of changes is one batch:
/// the user's committed change sequence, then the keyset ranges of ownership and of reading states.
/// </summary>
public sealed class PostgresLibraryStore(NpgsqlDataSource dataSource, StoragePipelines pipelines) : ILibraryStore
{
    public Task<LibraryChanges?> ReadChangesAsync(UserNo user, SyncPosition after, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user, after, limit),
            static (s, ct) => ReadChangesCoreAsync(s.dataSource, s.user, s.after, s.limit, ct),
            cancellationToken);

    public Task<LibraryBook?> ReadBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user, book),
            static (s, ct) => ReadBookCoreAsync(s.dataSource, s.user, s.book, ct),
            cancellationToken);

    private static async Task<LibraryChanges?> ReadChangesCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, SyncPosition after, int limit, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection);
        batch.BatchCommands.Add(new NpgsqlBatchCommand(SyncQueries.CommittedSeq) { Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } } });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(LibraryQueries.Changes)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = after.EntitlementSeq },
                new NpgsqlParameter<long> { TypedValue = after.EntitlementBook },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(ReadingStateQueries.Changes)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = after.ReadingSeq },
                new NpgsqlParameter<long> { TypedValue = after.ReadingBook },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(CollectionQueries.Changes)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = after.CollectionSeq },
                new NpgsqlParameter<Guid> { TypedValue = after.CollectionId },
                new NpgsqlParameter<int> { TypedValue = limit },
                // No cut here: the library page measures and cuts tags itself.
                new NpgsqlParameter<long> { TypedValue = long.MaxValue },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(CollectionQueries.PurgeHorizon) { Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } } });
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        var committed = reader.GetInt64(0);
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var books = new List<(long, LibraryBook)>(limit);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            books.Add((reader.GetInt64(0), Read(reader, 1)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var states = new List<(long, ReadingState)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var book = new BookNo(reader.GetInt64(1));
            states.Add((reader.GetInt64(0), PostgresReadingStateStore.ReadState(reader, 2, book) ?? ReadingState.Empty(book)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var collections = new List<(long, Domain.Collections.Collection)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            collections.Add((reader.GetInt64(0), PostgresCollectionStore.ReadView(reader, 1)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        return new LibraryChanges(books, states, committed) { Collections = collections, PurgedCollectionSeq = reader.GetInt64(0) };
    }

    private static async Task<LibraryBook?> ReadBookCoreAsync(NpgsqlDataSource dataSource, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(LibraryQueries.Book);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book.Value });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await reader.ReadAsync(cancellationToken).ConfigureAwait(false) ? Read(reader, 0) : null;
    }

    private static LibraryBook Read(NpgsqlDataReader reader, int first) => new(
        new BookNo(reader.GetInt64(first)),
        reader.GetString(first + 1),
        reader.IsDBNull(first + 2) ? null : reader.GetString(first + 2),
        reader.IsDBNull(first + 3) ? null : reader.GetString(first + 3),
        reader.GetBoolean(first + 4),
        reader.GetFieldValue<DateTimeOffset>(first + 5),
        reader.GetFieldValue<DateTimeOffset>(first + 6));
}
