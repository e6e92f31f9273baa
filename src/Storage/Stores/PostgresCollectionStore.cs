using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Collections on PostgreSQL (statements in <see cref="CollectionQueries"/>). A push is one transaction:
/// it takes the user's change sequence, reads what the decision needs in one round trip (the touched
/// collections, their membership registers, the live count, the books the user has had), and stores each
/// decided collection with its changed registers in one more, and once committed tells
/// <paramref name="signals"/> (live pull). Reads use the primary, so a device reads its own push.
/// </summary>
public sealed class PostgresCollectionStore(NpgsqlDataSource dataSource, ICommitSignals? signals = null) : ICollectionStore
{
    public async Task<bool> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<Guid> ids,
        IReadOnlyCollection<BookNo> books,
        Func<CollectionSnapshot, IReadOnlyList<CollectionWrite>> decide,
        CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        if (await ChangeSequences.TakeAsync(
            connection, transaction, user, ids.Count, cancellationToken).ConfigureAwait(false) is not { } lastSeq)
        {
            return false;
        }

        var snapshot = await LoadAsync(connection, transaction, user, ids, books, cancellationToken).ConfigureAwait(false);
        var writes = decide(snapshot);
        long? changedUpTo = null;
        if (writes.Count > 0)
        {
            await using var batch = new NpgsqlBatch(connection, transaction);
            var seq = lastSeq - ids.Count;
            foreach (var write in writes)
            {
                seq++;
                var state = write.State;
                batch.BatchCommands.Add(new NpgsqlBatchCommand(CollectionQueries.Store)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = user.Value },
                        new NpgsqlParameter<Guid> { TypedValue = state.Id },
                        new NpgsqlParameter<string> { TypedValue = state.Name },
                        new NpgsqlParameter<DateTimeOffset> { TypedValue = state.NameAt.ToUniversalTime() },
                        new NpgsqlParameter<bool> { TypedValue = state.Deleted },
                        new NpgsqlParameter<DateTimeOffset> { TypedValue = state.LivenessAt.ToUniversalTime() },
                        new NpgsqlParameter<DateTimeOffset> { TypedValue = state.ModifiedAt.ToUniversalTime() },
                        new NpgsqlParameter<long> { TypedValue = seq },
                        new NpgsqlParameter<DateTimeOffset> { TypedValue = state.CreatedAt.ToUniversalTime() },
                    },
                });
                if (write.ChangedBooks.Count > 0)
                {
                    var changed = write.ChangedBooks.ToArray();
                    batch.BatchCommands.Add(new NpgsqlBatchCommand(CollectionQueries.StoreBooks)
                    {
                        Parameters =
                        {
                            new NpgsqlParameter<long> { TypedValue = user.Value },
                            new NpgsqlParameter<Guid> { TypedValue = state.Id },
                            new NpgsqlParameter<long[]> { TypedValue = [.. changed.Select(b => b.Value)] },
                            new NpgsqlParameter<bool[]> { TypedValue = [.. changed.Select(b => state.Books[b].Present)] },
                            new NpgsqlParameter<DateTimeOffset[]>
                            {
                                TypedValue = [.. changed.Select(b => state.Books[b].At.ToUniversalTime())],
                            },
                        },
                    });
                }
            }

            await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            changedUpTo = seq;
        }

        await transaction.CommitAndSignalAsync(signals, user, changedUpTo, cancellationToken).ConfigureAwait(false);
        return true;
    }

    public async Task<IReadOnlyList<Collection>?> ListAsync(UserNo user, Guid? after, int limit, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(CollectionQueries.List);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Uuid, Value = after is { } id ? id : DBNull.Value });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = limit });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        var collections = new List<Collection>();
        do
        {
            if (!reader.IsDBNull(0))
            {
                collections.Add(CollectionRows.Read(reader, 0));
            }
        }
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false));
        return collections;
    }

    public async Task<CollectionLookup> GetAsync(UserNo user, Guid id, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(CollectionQueries.Get);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return CollectionLookup.UnknownUser;
        }

        return new CollectionLookup(true, reader.IsDBNull(0) ? null : CollectionRows.Read(reader, 0));
    }

    public async Task<Guid?> FindLiveByNameAsync(UserNo user, string name, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(CollectionQueries.FindLiveByName);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = name });
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) as Guid?;
    }

    private static async Task<CollectionSnapshot> LoadAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, UserNo user, IReadOnlyCollection<Guid> ids,
        IReadOnlyCollection<BookNo> books, CancellationToken cancellationToken)
    {
        var idArray = ids.ToArray();
        await using var batch = new NpgsqlBatch(connection, transaction)
        {
            BatchCommands =
            {
                new NpgsqlBatchCommand(CollectionQueries.LoadForWrite)
                {
                    Parameters = { new NpgsqlParameter<long>
                    {
                        TypedValue = user.Value,
                    }, new NpgsqlParameter<Guid[]> { TypedValue = idArray } },
                },
                new NpgsqlBatchCommand(CollectionQueries.LoadBooksForWrite)
                {
                    Parameters = { new NpgsqlParameter<long>
                    {
                        TypedValue = user.Value,
                    }, new NpgsqlParameter<Guid[]> { TypedValue = idArray } },
                },
                new NpgsqlBatchCommand(CollectionQueries.LiveCount)
                {
                    Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
                },
                new NpgsqlBatchCommand(CollectionQueries.OwnedBooks)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<long> { TypedValue = user.Value },
                        new NpgsqlParameter<long[]> { TypedValue = [.. books.Select(b => b.Value)] },
                    },
                },
            },
        };
        await using var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var rows =
            new List<(Guid Id, string Name, DateTimeOffset NameAt, bool Deleted, DateTimeOffset LivenessAt, DateTimeOffset CreatedAt)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            rows.Add((reader.GetGuid(0), reader.GetString(1), reader.GetFieldValue<DateTimeOffset>(2), reader.GetBoolean(3),
                reader.GetFieldValue<DateTimeOffset>(4), reader.GetFieldValue<DateTimeOffset>(5)));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var registers = new Dictionary<Guid, Dictionary<BookNo, Membership>>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var id = reader.GetGuid(0);
            if (!registers.TryGetValue(id, out var map))
            {
                registers[id] = map = [];
            }

            map[new BookNo(reader.GetInt64(1))] = new Membership(reader.GetBoolean(2), reader.GetFieldValue<DateTimeOffset>(3));
        }

        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        var liveCount = reader.GetInt32(0);
        var storedCount = reader.GetInt32(1);
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var owned = new HashSet<BookNo>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            owned.Add(new BookNo(reader.GetInt64(0)));
        }

        var stored = rows.ToDictionary(
            r => r.Id,
            r => new CollectionState(r.Id, r.Name, r.NameAt, r.Deleted, r.LivenessAt, r.CreatedAt,
                registers.TryGetValue(r.Id, out var map) ? map : new Dictionary<BookNo, Membership>()));
        return new CollectionSnapshot(stored, liveCount, owned) { StoredCount = storedCount };
    }
}
