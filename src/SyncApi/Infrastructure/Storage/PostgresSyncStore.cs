using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Device sync on PostgreSQL (statements in <see cref="HighlightSyncQueries"/> and the other <c>Sql/*Queries</c>): a push is one transaction
/// that takes the user's change sequence (reading the user's highlight holdings with it), locks and loads
/// the highlights it touches and stores the decided states in one statement, the holdings' change beside it; a pull is one round trip of seven statements (the reading states'
/// stream is <see cref="ReadingStateQueries.Changes"/>, the collections' <see cref="CollectionQueries.Changes"/>). A transaction that
/// wrote changes also sends live pull's notification (<see cref="ChangeSeqQueries.Notify"/>), in the same round
/// trip as its last write, unless <paramref name="notifyChanges"/> is off (<c>Sync:LivePull</c>). The
/// devices are in <c>PostgresSyncStore.Devices.cs</c>.
/// </summary>
public sealed partial class PostgresSyncStore(NpgsqlDataSource dataSource, bool notifyChanges = true) : ISyncStore
{
    public async Task<bool> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<HighlightId> ids,
        Func<IReadOnlyDictionary<HighlightId, HighlightState>, HighlightHoldings, IReadOnlyList<HighlightState>> decide,
        CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        long? lastSeq = null;
        var holdings = default(HighlightHoldings);
        await using (var take = new NpgsqlCommand(ChangeSeqQueries.TakeChangeSeqForHighlights, connection, transaction))
        {
            take.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
            take.Parameters.Add(new NpgsqlParameter<long> { TypedValue = ids.Count });
            await using var reader = await take.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            if (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                lastSeq = reader.GetInt64(0);
                holdings = new HighlightHoldings(reader.GetInt64(1), reader.GetInt64(2));
            }
        }

        if (lastSeq is null)
        {
            return false;
        }

        var stored = new Dictionary<HighlightId, HighlightState>(ids.Count);
        if (ids.Count > 0)
        {
            await using var load = new NpgsqlCommand(HighlightSyncQueries.LoadForWrite, connection, transaction);
            load.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = ids.Select(id => id.ToString()).ToArray() });
            await using var reader = await load.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var state = ReadState(reader);
                stored[state.Id] = state;
            }
        }

        var writes = decide(stored, holdings);
        if (writes.Count > 0)
        {
            await StoreAsync(
                connection, transaction, user, writes, HighlightHoldings.Change(stored, writes), lastSeq.Value - ids.Count, cancellationToken)
                .ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        return true;
    }

    public async Task<StoredChanges?> ReadChangesAsync(
        UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection)
        {
            BatchCommands =
            {
                new NpgsqlBatchCommand(ChangeSeqQueries.CommittedSeq)
                {
                    Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
                },
                new NpgsqlBatchCommand(HighlightSyncQueries.HighlightChanges)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = user.Value },
                        new NpgsqlParameter<long> { TypedValue = after.HighlightSeq },
                        new NpgsqlParameter<string> { TypedValue = after.HighlightId },
                        new NpgsqlParameter<int> { TypedValue = limit },
                        new NpgsqlParameter<long> { TypedValue = maxBytes },
                    },
                },
                new NpgsqlBatchCommand(OwnershipQueries.EntitlementChanges)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = user.Value },
                        new NpgsqlParameter<long> { TypedValue = after.EntitlementSeq },
                        new NpgsqlParameter<long> { TypedValue = after.EntitlementBook },
                        new NpgsqlParameter<int> { TypedValue = limit },
                    },
                },
                new NpgsqlBatchCommand(ReadingStateQueries.Changes)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = user.Value },
                        new NpgsqlParameter<long> { TypedValue = after.ReadingSeq },
                        new NpgsqlParameter<long> { TypedValue = after.ReadingBook },
                        new NpgsqlParameter<int> { TypedValue = limit },
                    },
                },
                PostgresCollectionStore.ChangesCommand(user, after, limit, maxBytes),
                new NpgsqlBatchCommand(HighlightSyncQueries.PurgeHorizon)
                {
                    Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
                },
                new NpgsqlBatchCommand(CollectionQueries.PurgeHorizon)
                {
                    Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
                },
            },
        };
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        var committedSeq = reader.GetInt64(0);
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var highlights = new List<(long, HighlightState)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var modifiedAt = reader.GetFieldValue<DateTimeOffset>(8);
            highlights.Add((reader.GetInt64(0), new HighlightState(
                ParseId(reader.GetString(1)),
                NullableString(reader, 2),
                reader.IsDBNull(3) ? null : reader.GetInt32(3),
                reader.IsDBNull(4) ? null : reader.GetInt32(4),
                NullableString(reader, 5),
                NullableString(reader, 6),
                reader.GetFieldValue<DateTimeOffset>(7),
                modifiedAt,
                reader.GetInt64(9),
                reader.GetBoolean(10),
                FieldTimes.All(modifiedAt),
                NullableString(reader, 11))));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var entitlements = new List<(long, EntitlementState)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            entitlements.Add((reader.GetInt64(0), new EntitlementState(
                reader.GetInt64(1), reader.GetString(2), NullableString(reader, 3), reader.GetBoolean(4),
                reader.GetFieldValue<DateTimeOffset>(5))));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var readingStates = new List<(long, ReadingState)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var book = new BookNo(reader.GetInt64(1));
            readingStates.Add((reader.GetInt64(0), PostgresReadingStateStore.ReadState(reader, 2, book) ?? ReadingState.Empty(book)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var collections = new List<(long, Collection)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            collections.Add((reader.GetInt64(0), PostgresCollectionStore.ReadView(reader, 1)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        var purgedHighlightSeq = reader.GetInt64(0);
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        return new StoredChanges(highlights, entitlements, committedSeq, purgedHighlightSeq)
        {
            ReadingStates = readingStates,
            Collections = collections,
            PurgedCollectionSeq = reader.GetInt64(0),
        };
    }

    public async Task<bool> SetOwnershipAsync(UserNo user, BookNo book, bool owned, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        var seq = await TakeChangeSeqAsync(connection, transaction, user, 1, cancellationToken).ConfigureAwait(false);
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
        if (changed && notifyChanges)
        {
            await using var notify = new NpgsqlBatch(connection, transaction) { BatchCommands = { NotifyCommand(user, seq.Value) } };
            await notify.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        return changed;
    }

    private static async Task<long?> TakeChangeSeqAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, UserNo user, int count, CancellationToken cancellationToken)
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

    private async Task StoreAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, UserNo user, IReadOnlyList<HighlightState> writes,
        HighlightHoldings change, long firstSeq, CancellationToken cancellationToken)
    {
        var n = writes.Count;
        var seq = new long[n];
        for (var i = 0; i < n; i++)
        {
            seq[i] = firstSeq + 1 + i;
        }

        var store = new NpgsqlBatchCommand(HighlightSyncQueries.Store)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                Array(NpgsqlDbType.Text, writes.Select(w => w.Id.ToString()).ToArray()),
                Array(NpgsqlDbType.Bigint, writes.Select(w => w.Id.Book.Value).ToArray()),
                Array(NpgsqlDbType.Text, writes.Select(w => w.Text).ToArray()),
                Array(NpgsqlDbType.Integer, writes.Select(w => w.Start).ToArray()),
                Array(NpgsqlDbType.Integer, writes.Select(w => w.Length).ToArray()),
                Array(NpgsqlDbType.Text, writes.Select(w => w.Color).ToArray()),
                Array(NpgsqlDbType.Text, writes.Select(w => w.Note).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.CreatedAt.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.ModifiedAt.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.Bigint, seq),
                Array(NpgsqlDbType.Bigint, writes.Select(w => w.Version).ToArray()),
                Array(NpgsqlDbType.Boolean, writes.Select(w => w.Deleted).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.Times.Text.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.Times.Range.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.Times.Color.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.TimestampTz, writes.Select(w => w.Times.Note.ToUniversalTime()).ToArray()),
                Array(NpgsqlDbType.Text, writes.Select(w => w.Location).ToArray()),
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
                },
            });
        }

        if (notifyChanges)
        {
            batch.BatchCommands.Add(NotifyCommand(user, seq[^1]));
        }

        await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    private static NpgsqlBatchCommand NotifyCommand(UserNo user, long seq) => new(ChangeSeqQueries.Notify)
    {
        Parameters =
        {
            new NpgsqlParameter<long> { TypedValue = user.Value },
            new NpgsqlParameter<long> { TypedValue = seq },
        },
    };

    private static NpgsqlParameter Array(NpgsqlDbType elementType, object values) =>
        new() { NpgsqlDbType = NpgsqlDbType.Array | elementType, Value = values };

    private static HighlightState ReadState(NpgsqlDataReader reader) => new(
        ParseId(reader.GetString(0)),
        NullableString(reader, 1),
        reader.IsDBNull(2) ? null : reader.GetInt32(2),
        reader.IsDBNull(3) ? null : reader.GetInt32(3),
        NullableString(reader, 4),
        NullableString(reader, 5),
        reader.GetFieldValue<DateTimeOffset>(6),
        reader.GetFieldValue<DateTimeOffset>(7),
        reader.GetInt64(8),
        reader.GetBoolean(9),
        new FieldTimes(
            reader.GetFieldValue<DateTimeOffset>(10),
            reader.GetFieldValue<DateTimeOffset>(11),
            reader.GetFieldValue<DateTimeOffset>(12),
            reader.GetFieldValue<DateTimeOffset>(13)),
        NullableString(reader, 14));

    private static string? NullableString(NpgsqlDataReader reader, int ordinal) =>
        reader.IsDBNull(ordinal) ? null : reader.GetString(ordinal);

    private static HighlightId ParseId(string id) =>
        HighlightId.TryParse(id, out var parsed) ? parsed : throw new InvalidOperationException($"Stored highlight id '{id}' is malformed.");
}
