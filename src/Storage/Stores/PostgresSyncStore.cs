using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Standbys;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Device sync on PostgreSQL (statements in <see cref="HighlightSyncQueries"/> and the other <c>Sql/*Queries</c>): a push is one
/// transaction of two round trips: the first takes the user's change sequence (reading the user's highlight holdings with it) and locks and
/// loads the highlights it touches; the second stores the decided states in one statement, the holdings' change beside it, and commits; a
/// pull is one round trip of seven statements, on a standby when it has the user's last write (<see cref="StandbyReads"/>) (the reading
/// states' stream is <see cref="ReadingStateQueries.Changes"/>, the collections' <see cref="CollectionQueries.Changes"/>). A transaction
/// that wrote changes is told to <paramref name="signals"/> (live pull) once it has committed. The
/// devices are in <c>PostgresSyncStore.Devices.cs</c>.
/// </summary>
public sealed partial class PostgresSyncStore(
    NpgsqlDataSource dataSource, ICommitSignals? signals = null, StandbyReads? standbyReads = null)
    : ISyncStore
{
    private readonly StandbyReads _reads = standbyReads ?? StandbyReads.PrimaryOnly(dataSource);

    public async Task<long?> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<HighlightId> ids,
        Func<IReadOnlyDictionary<HighlightId, HighlightState>, HighlightHoldings, IReadOnlyList<HighlightState>> decide,
        CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        long? lastSeq = null;
        var holdings = default(HighlightHoldings);
        var stored = new Dictionary<HighlightId, HighlightState>(ids.Count);

        // The numbers (the user's row lock) and the highlights (their row locks, in that order) in one round trip.
        await using (var take = new NpgsqlBatch(connection, transaction) { BatchCommands = { TakeCommand(user, ids.Count) } })
        {
            if (ids.Count > 0)
            {
                take.BatchCommands.Add(LoadCommand(ids));
            }

            await using var reader = await take.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
            if (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                lastSeq = reader.GetInt64(0);
                holdings = new HighlightHoldings(reader.GetInt64(1), reader.GetInt64(2), reader.GetInt64(3));
            }

            if (ids.Count > 0 && await reader.NextResultAsync(cancellationToken).ConfigureAwait(false))
            {
                while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    var state = ReadState(reader, 0, withFieldTimes: true);
                    stored[state.Id] = state;
                }
            }
        }

        if (lastSeq is null)
        {
            return null;
        }

        var writes = decide(stored, holdings);
        if (writes.Count > 0)
        {
            // Commits in the same round trip as the store.
            await StoreAndCommitAsync(
                connection, transaction, user, writes, HighlightHoldings.Change(stored, writes),
                lastSeq.Value - ids.Count, cancellationToken)
                .ConfigureAwait(false);
            signals.SignalCommitted(user, lastSeq.Value - ids.Count + writes.Count);
        }
        else
        {
            await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        }

        return lastSeq.Value - ids.Count + writes.Count;
    }

    private static NpgsqlBatchCommand TakeCommand(UserNo user, int count) => new(ChangeSeqQueries.TakeChangeSeqForHighlights)
    {
        Parameters =
        {
            new NpgsqlParameter<long> { TypedValue = user.Value },
            new NpgsqlParameter<long> { TypedValue = count },
        },
    };

    private static NpgsqlBatchCommand LoadCommand(IReadOnlyCollection<HighlightId> ids)
    {
        var texts = new string[ids.Count];
        var i = 0;
        foreach (var id in ids)
        {
            texts[i++] = id.ToString();
        }

        return new(HighlightSyncQueries.LoadForWrite) { Parameters = { new NpgsqlParameter<string[]> { TypedValue = texts } } };
    }

    public Task<long?> ReadCommittedSeqAsync(UserNo user, long written, CancellationToken cancellationToken) =>
        _reads.ReadCommittedSeqAsync(user, written, cancellationToken);

    public Task<StoredChanges?> ReadChangesAsync(
        UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        return _reads.ReadAsync(
            user,
            after.WrittenSeq,
            (User: user, After: after, Limit: limit, MaxBytes: maxBytes),
            static (source, check, a, ct) => ReadChangesAsync(source, check, a.User, a.After, a.Limit, a.MaxBytes, ct),
            cancellationToken);
    }

    private static async Task<StoredChanges?> ReadChangesAsync(
        NpgsqlDataSource dataSource, StandbyCheck? check, UserNo user, SyncPosition after,
        int limit, long maxBytes, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection)
        {
            BatchCommands =
            {
                StandbyCheck.FirstCommand(check, user),
                ChangeFeedBatch.Page(HighlightSyncQueries.HighlightChanges, user, after.HighlightSeq, after.HighlightId, limit, maxBytes),
                ChangeFeedBatch.Page(OwnershipQueries.EntitlementChanges, user, after.EntitlementSeq, after.EntitlementBook, limit),
                ChangeFeedBatch.Page(ReadingStateQueries.Changes, user, after.ReadingSeq, after.ReadingBook, limit),
                CollectionRows.Changes(user, after, limit, maxBytes),
                ChangeFeedBatch.OfUser(HighlightSyncQueries.PurgeHorizon, user),
                ChangeFeedBatch.OfUser(CollectionQueries.PurgeHorizon, user),
            },
        };
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        var committed = await StandbyCheck.ReadFirstAsync(reader, check, cancellationToken).ConfigureAwait(false);
        if (check is { Refused: true } || committed is not { } committedSeq)
        {
            return null;
        }

        var highlights = await ChangeFeedBatch.ReadPageAsync(
            reader, r => ReadState(r, 1, withFieldTimes: false), cancellationToken).ConfigureAwait(false);
        var entitlements = await ChangeFeedBatch.ReadPageAsync(
            reader,
            r => new EntitlementState(
                r.GetInt64(1), r.GetString(2), NullableString(r, 3), r.GetBoolean(4), r.GetFieldValue<DateTimeOffset>(5)),
            cancellationToken).ConfigureAwait(false);
        var readingStates = await ChangeFeedBatch.ReadPageAsync(reader, ReadReadingState, cancellationToken).ConfigureAwait(false);
        var collections = await ChangeFeedBatch.ReadPageAsync(
            reader, r => CollectionRows.Read(r, 1), cancellationToken).ConfigureAwait(false);
        var purgedHighlightSeq = await ChangeFeedBatch.ReadNumberAsync(reader, cancellationToken).ConfigureAwait(false);
        return new StoredChanges(highlights, entitlements, committedSeq, purgedHighlightSeq)
        {
            ReadingStates = readingStates,
            Collections = collections,
            PurgedCollectionSeq = await ChangeFeedBatch.ReadNumberAsync(reader, cancellationToken).ConfigureAwait(false),
        };

        static ReadingState ReadReadingState(NpgsqlDataReader reader)
        {
            var book = new BookNo(reader.GetInt64(1));
            return ReadingStateRows.Read(reader, 2, book) ?? ReadingState.Empty(book);
        }
    }

    public async Task<bool> SetOwnershipAsync(UserNo user, BookNo book, bool owned, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        var seq = await ChangeSequences.TakeAsync(connection, transaction, user, 1, cancellationToken).ConfigureAwait(false);
        if (seq is null)
        {
            return false;
        }

        await using var command = new NpgsqlCommand(owned ? OwnershipQueries.Grant : OwnershipQueries.Remove, connection, transaction)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = book.Value },
                new NpgsqlParameter<long> { TypedValue = seq.Value },
            },
        };
        var changed = await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is not null;
        await transaction.CommitAndSignalAsync(signals, user, changed ? seq.Value : null, cancellationToken).ConfigureAwait(false);
        return changed;
    }

    /// <summary>
    /// The store and the holdings' change, then <c>COMMIT</c>, in one round trip. When
    /// a statement fails the server skips the rest, the <c>COMMIT</c> included, and the transaction rolls back
    /// when it is disposed; after the <c>COMMIT</c> the connection is out of the transaction and its disposal sends nothing.
    /// </summary>
    private async Task StoreAndCommitAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, UserNo user, IReadOnlyList<HighlightState> writes,
        HighlightHoldings change, long firstSeq, CancellationToken cancellationToken)
    {
        // One array per column, filled in one pass; typed parameters, whose PostgreSQL types Npgsql knows from the CLR types.
        var n = writes.Count;
        var ids = new string[n];
        var books = new long[n];
        var texts = new string?[n];
        var starts = new int?[n];
        var lengths = new int?[n];
        var colors = new string?[n];
        var notes = new string?[n];
        var createdAt = new DateTimeOffset[n];
        var modifiedAt = new DateTimeOffset[n];
        var seq = new long[n];
        var versions = new long[n];
        var deleted = new bool[n];
        var textAt = new DateTimeOffset[n];
        var rangeAt = new DateTimeOffset[n];
        var colorAt = new DateTimeOffset[n];
        var noteAt = new DateTimeOffset[n];
        var locations = new string?[n];
        for (var i = 0; i < n; i++)
        {
            var w = writes[i];
            ids[i] = w.Id.ToString();
            books[i] = w.Id.Book.Value;
            texts[i] = w.Text;
            starts[i] = w.Start;
            lengths[i] = w.Length;
            colors[i] = w.Color;
            notes[i] = w.Note;
            createdAt[i] = w.CreatedAt.ToUniversalTime();
            modifiedAt[i] = w.ModifiedAt.ToUniversalTime();
            seq[i] = firstSeq + 1 + i;
            versions[i] = w.Version;
            deleted[i] = w.Deleted;
            textAt[i] = w.Times.Text.ToUniversalTime();
            rangeAt[i] = w.Times.Range.ToUniversalTime();
            colorAt[i] = w.Times.Color.ToUniversalTime();
            noteAt[i] = w.Times.Note.ToUniversalTime();
            locations[i] = w.Location;
        }

        var store = new NpgsqlBatchCommand(HighlightSyncQueries.Store)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string[]> { TypedValue = ids },
                new NpgsqlParameter<long[]> { TypedValue = books },
                new NpgsqlParameter<string?[]> { TypedValue = texts },
                new NpgsqlParameter<int?[]> { TypedValue = starts },
                new NpgsqlParameter<int?[]> { TypedValue = lengths },
                new NpgsqlParameter<string?[]> { TypedValue = colors },
                new NpgsqlParameter<string?[]> { TypedValue = notes },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = createdAt },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = modifiedAt },
                new NpgsqlParameter<long[]> { TypedValue = seq },
                new NpgsqlParameter<long[]> { TypedValue = versions },
                new NpgsqlParameter<bool[]> { TypedValue = deleted },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = textAt },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = rangeAt },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = colorAt },
                new NpgsqlParameter<DateTimeOffset[]> { TypedValue = noteAt },
                new NpgsqlParameter<string?[]> { TypedValue = locations },
            },
        };
        await using var batch = new NpgsqlBatch(connection, transaction) { BatchCommands = { store } };
        if (change != default)
        {
            batch.BatchCommands.Add(new NpgsqlBatchCommand(HighlightSyncQueries.ChangeHoldings)
            {
                Parameters =
                {
                    new NpgsqlParameter<long> { TypedValue = user.Value },
                    new NpgsqlParameter<long> { TypedValue = change.Count },
                    new NpgsqlParameter<long> { TypedValue = change.Bytes },
                    new NpgsqlParameter<long> { TypedValue = change.Tombstones },
                },
            });
        }

        batch.BatchCommands.Add(new NpgsqlBatchCommand(ChangeSeqQueries.Commit));
        await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// A highlight from columns id, text, start, length, color, note, created_at, modified_at, version,
    /// deleted from <paramref name="first"/> on, then, <paramref name="withFieldTimes"/>, the four edit
    /// times (text, range, color, note; else modified_at stands for each), then location.
    /// </summary>
    private static HighlightState ReadState(NpgsqlDataReader reader, int first, bool withFieldTimes)
    {
        var modifiedAt = reader.GetFieldValue<DateTimeOffset>(first + 7);
        var times = withFieldTimes
            ? new FieldTimes(
                reader.GetFieldValue<DateTimeOffset>(first + 10),
                reader.GetFieldValue<DateTimeOffset>(first + 11),
                reader.GetFieldValue<DateTimeOffset>(first + 12),
                reader.GetFieldValue<DateTimeOffset>(first + 13))
            : FieldTimes.All(modifiedAt);
        return new(
            ParseId(reader.GetString(first)),
            NullableString(reader, first + 1),
            reader.IsDBNull(first + 2) ? null : reader.GetInt32(first + 2),
            reader.IsDBNull(first + 3) ? null : reader.GetInt32(first + 3),
            NullableString(reader, first + 4),
            NullableString(reader, first + 5),
            reader.GetFieldValue<DateTimeOffset>(first + 6),
            modifiedAt,
            reader.GetInt64(first + 8),
            reader.GetBoolean(first + 9),
            times,
            NullableString(reader, first + (withFieldTimes ? 14 : 10)));
    }

    private static string? NullableString(NpgsqlDataReader reader, int ordinal) =>
        reader.IsDBNull(ordinal) ? null : reader.GetString(ordinal);

    private static HighlightId ParseId(string id) =>
        HighlightId.TryParse(id, out var parsed)
            ? parsed
            : throw new InvalidOperationException($"Stored highlight id '{id}' is malformed.");
}
