using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Standbys;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Library sync's reads on PostgreSQL (<see cref="LibraryQueries"/>). A device archiving a book reads its
/// library right after, so the pages are read on a standby only when it has the user's last write
/// (<see cref="StandbyReads"/>), else on the primary, and a single book always on the primary
/// (<see cref="ResilientLibraryStore"/> runs them in their storage pipeline). A page of changes is one batch:
/// the user's committed change sequence, then the keyset ranges of ownership (each book with its reading
/// state) and of reading states (each with when the user got the book).
/// </summary>
public sealed class PostgresLibraryStore(NpgsqlDataSource dataSource, StandbyReads? standbyReads = null) : ILibraryStore
{
    private readonly StandbyReads _reads = standbyReads ?? StandbyReads.PrimaryOnly(dataSource);

    public Task<LibraryChanges?> ReadChangesAsync(
        UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        return _reads.ReadAsync(
            user,
            after.WrittenSeq,
            (User: user, After: after, Limit: limit, MaxBytes: maxBytes),
            static (source, check, a, ct) => ReadChangesCoreAsync(source, check, a.User, a.After, a.Limit, a.MaxBytes, ct),
            cancellationToken);
    }

    public Task<long?> ReadCommittedSeqAsync(UserNo user, CancellationToken cancellationToken) =>
        _reads.ReadCommittedSeqAsync(user, written: 0, cancellationToken);

    public Task<LibraryBook?> ReadBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        ReadBookCoreAsync(dataSource, user, book, cancellationToken);

    private static async Task<LibraryChanges?> ReadChangesCoreAsync(
        NpgsqlDataSource dataSource, StandbyCheck? check, UserNo user, SyncPosition after,
        int limit, long maxBytes, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection);
        batch.BatchCommands.Add(StandbyCheck.FirstCommand(check, user));
        batch.BatchCommands.Add(ChangeFeedBatch.Page(LibraryQueries.Changes, user, after.EntitlementSeq, after.EntitlementBook, limit));
        batch.BatchCommands.Add(ChangeFeedBatch.Page(LibraryQueries.ReadingStateChanges, user, after.ReadingSeq, after.ReadingBook, limit));
        // Cut as the native pull cuts them: a tag measures more than a native collection change
        // (LibrarySync.TagOverheadBytes >= PageBudget.ItemOverheadBytes, TagItemBytes >= BytesPerBook),
        // so the page never needs a collection left out, and large ones past the budget are never read.
        batch.BatchCommands.Add(CollectionRows.Changes(user, after, limit, maxBytes));
        batch.BatchCommands.Add(ChangeFeedBatch.OfUser(CollectionQueries.PurgeHorizon, user));
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        var seq = await StandbyCheck.ReadFirstAsync(reader, check, cancellationToken).ConfigureAwait(false);
        if (check is { Refused: true } || seq is not { } committed)
        {
            return null;
        }

        var books = await ChangeFeedBatch.ReadPageAsync(reader, r => Read(r, 1), cancellationToken).ConfigureAwait(false);
        var states = await ChangeFeedBatch.ReadPageAsync(reader, ReadState, cancellationToken).ConfigureAwait(false);
        var collections = await ChangeFeedBatch.ReadPageAsync(
            reader, r => CollectionRows.Read(r, 1), cancellationToken).ConfigureAwait(false);
        var purgedCollectionSeq = await ChangeFeedBatch.ReadNumberAsync(reader, cancellationToken).ConfigureAwait(false);
        return new LibraryChanges(books, states, committed) { Collections = collections, PurgedCollectionSeq = purgedCollectionSeq };

        static LibraryReadingState ReadState(NpgsqlDataReader reader)
        {
            var book = new BookNo(reader.GetInt64(1));
            var state = ReadingStateRows.Read(reader, 3, book) ?? ReadingState.Empty(book);

            // A state outlives nothing it belongs to in practice; should its book row be gone, the state
            // is dated from its own first write rather than not sent.
            var acquired = reader.IsDBNull(2) ? state.ModifiedAt ?? DateTimeOffset.UnixEpoch : reader.GetFieldValue<DateTimeOffset>(2);
            return new LibraryReadingState(state, acquired);
        }
    }

    private static async Task<LibraryBook?> ReadBookCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(LibraryQueries.Book);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book.Value });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await reader.ReadAsync(cancellationToken).ConfigureAwait(false) ? Read(reader, 0) : null;
    }

    private static LibraryBook Read(NpgsqlDataReader reader, int first)
    {
        var book = new BookNo(reader.GetInt64(first));
        return new LibraryBook(
            book,
            reader.GetString(first + 1),
            reader.IsDBNull(first + 2) ? null : reader.GetString(first + 2),
            reader.IsDBNull(first + 3) ? null : reader.GetString(first + 3),
            reader.GetBoolean(first + 4),
            reader.GetFieldValue<DateTimeOffset>(first + 5),
            reader.GetFieldValue<DateTimeOffset>(first + 6),
            ReadingStateRows.Read(reader, first + 7, book))
        {
            // After the reading state's seven columns.
            File = reader.IsDBNull(first + 14) ? null : new BookFile(reader.GetString(first + 14), reader.GetInt64(first + 15)),
        };
    }
}
