using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// KOReader's logins and progress in PostgreSQL (<see cref="KoreaderQueries"/>), on the primary: a device
/// reads its own write. A write to a book's reading state is one transaction that takes the user's change
/// sequence as every reading state write does (<see cref="PostgresReadingStateStore"/>), stores the state with
/// KOReader's part beside it and, once committed, tells <paramref name="signals"/> (live pull).
/// </summary>
public sealed class PostgresKoreaderStore(NpgsqlDataSource dataSource, ICommitSignals? signals = null) : IKoreaderStore
{
    public async Task<KoreaderCredentialOutcome> CreateCredentialAsync(
        UserNo user, string linkingDeviceId, string username, string keyHash, DeviceBounds bounds, DateTimeOffset? revokedFrom,
        CancellationToken cancellationToken)
    {
        await using var batch = dataSource.CreateBatch();
        DeviceCommands.AddNew(batch, KoboLinkQueries.EnsureDevice, user, linkingDeviceId, bounds);
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoreaderQueries.Create)
        {
            Parameters =
            {
                User(user),
                new NpgsqlParameter<string> { TypedValue = linkingDeviceId },
                new NpgsqlParameter<string> { TypedValue = username },
                new NpgsqlParameter<string> { TypedValue = keyHash },
                Nullable(NpgsqlDbType.TimestampTz, revokedFrom?.ToUniversalTime()),
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoreaderQueries.RevokeBeyondBounds) { Parameters = { User(user) } });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoreaderQueries.DropOldestRevoked) { Parameters = { User(user) } });
        await using var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var outcome = KoreaderCredentialOutcome.NoSuchUser;
        do
        {
            if (reader.FieldCount == 2 && reader.GetName(1) == "created_at"
                && await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                outcome = reader.GetBoolean(0) ? KoreaderCredentialOutcome.LinkingDeviceRevoked
                    : reader.IsDBNull(1) ? KoreaderCredentialOutcome.NoSuchUser
                    : KoreaderCredentialOutcome.Created;
            }
        }
        while (await reader.NextResultAsync(cancellationToken).ConfigureAwait(false));

        return outcome;
    }

    public async Task<KoreaderCredential?> LookUpCredentialAsync(string username, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoreaderQueries.Find);
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = username });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        return new KoreaderCredential(
            username, new UserNo(reader.GetInt64(0)), reader.GetString(1), reader.GetString(2), reader.GetFieldValue<DateTimeOffset>(3),
            reader.IsDBNull(4) ? null : reader.GetFieldValue<DateTimeOffset>(4));
    }

    public async Task<IReadOnlyList<KoreaderCredentialView>?> ListCredentialsAsync(UserNo user, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoreaderQueries.List);
        command.Parameters.Add(User(user));
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var logins = new List<KoreaderCredentialView>();
        var exists = false;
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (reader.IsDBNull(0))
            {
                exists = reader.GetBoolean(4);
                continue;
            }

            logins.Add(new KoreaderCredentialView(
                reader.GetString(0), reader.GetString(1), reader.GetFieldValue<DateTimeOffset>(2),
                reader.IsDBNull(3) ? null : reader.GetFieldValue<DateTimeOffset>(3)));
        }

        logins.Sort(
            static (a, b) => b.CreatedAt.CompareTo(a.CreatedAt) is var byTime and not 0
                ? byTime
                : string.CompareOrdinal(a.Username, b.Username));
        return exists ? logins : null;
    }

    public async Task<bool> RevokeCredentialAsync(UserNo user, string username, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoreaderQueries.Revoke);
        command.Parameters.Add(User(user));
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = username });
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is not null;
    }

    public async Task<KoreaderResolution> ResolveAsync(UserNo user, IReadOnlyList<string> digests, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection)
        {
            BatchCommands =
            {
                new NpgsqlBatchCommand(KoreaderQueries.ResolveBook) { Parameters = { User(user), Digests(digests) } },
                new NpgsqlBatchCommand(KoreaderQueries.ResolveDocument) { Parameters = { User(user), Digests(digests) } },
            },
        };
        (int Candidate, BookNo Book)? book = null;
        KoreaderDocumentRecord? document = null;
        await using (var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            if (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                book = ((int)reader.GetInt64(0) - 1, new BookNo(reader.GetInt64(1)));
            }

            await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
            if (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                document = new KoreaderDocumentRecord(
                    reader.GetString(1), (int)reader.GetInt64(0) - 1, reader.GetDouble(2), reader.GetString(3), reader.GetString(4),
                    reader.IsDBNull(5) ? null : reader.GetString(5), reader.IsDBNull(6) ? null : reader.GetString(6),
                    reader.GetFieldValue<DateTimeOffset>(7));
            }
        }

        if (book is { } found)
        {
            var (access, state, mark) = await LoadBookAsync(connection, null, user, found.Book, cancellationToken).ConfigureAwait(false);
            if (access == BookAccess.Owned)
            {
                return new KoreaderResolution(new KoreaderBookRecord(found.Book, found.Candidate, state, mark), document);
            }
        }

        return new KoreaderResolution(null, document);
    }

    public async Task<bool> ApplyToBookAsync(
        UserNo user, BookNo book, Func<ReadingState?, KoreaderMark?, KoreaderBookDecision> decide, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        if (await ChangeSequences.TakeAsync(connection, transaction, user, 1, cancellationToken).ConfigureAwait(false) is not { } seq)
        {
            return false;
        }

        var (access, stored, storedMark) = await LoadBookAsync(
            connection, transaction, user, book, cancellationToken).ConfigureAwait(false);
        if (access != BookAccess.Owned)
        {
            return false;
        }

        var decision = decide(stored, storedMark);
        long? changedUpTo = null;
        if (decision is { State: { } state, Mark: { } mark })
        {
            var store = new NpgsqlBatchCommand(ReadingStateQueries.Store)
            {
                Parameters =
                {
                    User(user),
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
            var storeMark = new NpgsqlBatchCommand(KoreaderQueries.StoreMark)
            {
                Parameters =
                {
                    User(user),
                    new NpgsqlParameter<long> { TypedValue = book.Value },
                    new NpgsqlParameter<string> { TypedValue = mark.Progress },
                    new NpgsqlParameter<double> { TypedValue = mark.Percentage },
                    new NpgsqlParameter<string> { TypedValue = mark.Device },
                    Nullable(NpgsqlDbType.Text, mark.DeviceId),
                    Nullable(NpgsqlDbType.Text, mark.Identifiers),
                    new NpgsqlParameter<DateTimeOffset> { TypedValue = mark.At.ToUniversalTime() },
                },
            };
            await using var batch = new NpgsqlBatch(connection, transaction) { BatchCommands = { store, storeMark } };
            await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            changedUpTo = seq;
        }

        await transaction.CommitAndSignalAsync(signals, user, changedUpTo, cancellationToken).ConfigureAwait(false);
        return true;
    }

    public async Task<DateTimeOffset> StoreDocumentAsync(
        UserNo user, string document, KoreaderPut put, IReadOnlyList<string> aliases, int maxDocuments, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoreaderQueries.StoreDocument);
        command.Parameters.Add(User(user));
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = document });
        command.Parameters.Add(new NpgsqlParameter<double> { TypedValue = put.Percentage });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = put.Progress });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = put.Device });
        command.Parameters.Add(Nullable(NpgsqlDbType.Text, put.DeviceId));
        command.Parameters.Add(Nullable(NpgsqlDbType.Text, put.Identifiers is { } list ? KoreaderIdentifiers.Encode(list) : null));
        command.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = [.. aliases] });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = maxDocuments });
        return await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is DateTime at
            ? new DateTimeOffset(DateTime.SpecifyKind(at, DateTimeKind.Utc))
            : throw new InvalidOperationException("The user of a KOReader login does not exist any more.");
    }

    private static async Task<(BookAccess Access, ReadingState? State, KoreaderMark? Mark)> LoadBookAsync(
        NpgsqlConnection connection, NpgsqlTransaction? transaction, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        await using var load = new NpgsqlCommand(KoreaderQueries.LoadBook, connection, transaction)
        {
            Parameters = { User(user), new NpgsqlParameter<long> { TypedValue = book.Value } },
        };
        await using var reader = await load.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return (BookAccess.UnknownUser, null, null);
        }

        if (!reader.GetBoolean(0))
        {
            return (BookAccess.NotOwned, null, null);
        }

        var state = ReadingStateRows.Read(reader, 1, book);
        const int First = 8;
        var mark = reader.IsDBNull(First) || reader.IsDBNull(First + 5) ? null : new KoreaderMark(
            reader.GetString(First), reader.GetDouble(First + 1), reader.GetString(First + 2),
            reader.IsDBNull(First + 3) ? null : reader.GetString(First + 3),
            reader.IsDBNull(First + 4) ? null : reader.GetString(First + 4),
            reader.GetFieldValue<DateTimeOffset>(First + 5));
        return (BookAccess.Owned, state, mark);
    }

    private static NpgsqlParameter<long> User(UserNo user) => new() { TypedValue = user.Value };

    private static NpgsqlParameter<string[]> Digests(IReadOnlyList<string> digests) => new() { TypedValue = [.. digests] };

    private static NpgsqlParameter Nullable(NpgsqlDbType type, object? value) => new()
    {
        NpgsqlDbType = type, Value = value ?? DBNull.Value,
    };
}
