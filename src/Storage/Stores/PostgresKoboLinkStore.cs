using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Kobo links in PostgreSQL (<see cref="KoboLinkQueries"/>). Links are read from the primary: a device
/// uses its link moments after it was made, before a standby may have it. Plain calls: the storage
/// pipelines are applied by <see cref="ResilientKoboLinkStore"/>.
/// </summary>
public sealed class PostgresKoboLinkStore(NpgsqlDataSource dataSource) : IKoboLinkStore
{
    private byte[]? _secretKey;

    public ValueTask<byte[]> SecretKeyAsync(CancellationToken cancellationToken) =>
        _secretKey is { } known ? ValueTask.FromResult(known) : new ValueTask<byte[]>(ReadSecretKeyAsync(cancellationToken));

    public Task<KoboLinkCreation> CreateAsync(
        UserNo user, string linkingDeviceId, byte[] secretHash, DeviceBounds bounds,
        DateTimeOffset? revokedFrom, CancellationToken cancellationToken) =>
        CreateCoreAsync(dataSource, user, linkingDeviceId, secretHash, bounds, revokedFrom, cancellationToken);

    public Task<KoboLink?> LookUpAsync(byte[] secretHash, CancellationToken cancellationToken) =>
        FindCoreAsync(dataSource, secretHash, cancellationToken);

    public Task<IReadOnlyList<KoboLinkView>?> ListAsync(UserNo user, CancellationToken cancellationToken) =>
        ListCoreAsync(dataSource, user, cancellationToken);

    public async Task<byte[]?> RevokeAsync(UserNo user, byte[] linkId, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.Revoke);
        command.Parameters.Add(UserParameter(user));
        command.Parameters.Add(new NpgsqlParameter<byte[]> { TypedValue = linkId });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await reader.ReadAsync(cancellationToken).ConfigureAwait(false) ? reader.GetFieldValue<byte[]>(0) : null;
    }

    private async Task<byte[]> ReadSecretKeyAsync(CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.SecretKey);
        var key = await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) as byte[]
            ?? throw new InvalidOperationException("The database holds no Kobo link key (kobo_link_keys): its migrations have not run.");
        // Never changes: every caller may keep the first value read.
        _secretKey = key;
        return key;
    }

    private static async Task<KoboLinkCreation> CreateCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, string linkingDeviceId, byte[] secretHash, DeviceBounds bounds,
        DateTimeOffset? revokedFrom, CancellationToken cancellationToken)
    {
        // One batch, one implicit transaction, under the user's device lock as adding or revoking a device is.
        await using var batch = dataSource.CreateBatch();
        DeviceCommands.AddNew(batch, KoboLinkQueries.EnsureDevice, user, linkingDeviceId, bounds);
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.Create)
        {
            Parameters =
            {
                UserParameter(user),
                new NpgsqlParameter<string> { TypedValue = linkingDeviceId },
                new NpgsqlParameter<byte[]> { TypedValue = secretHash },
                new NpgsqlParameter
                {
                    NpgsqlDbType = NpgsqlDbType.TimestampTz,
                    Value = revokedFrom is { } from ? from.ToUniversalTime() : DBNull.Value,
                },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.RevokeBeyondBounds) { Parameters = { UserParameter(user) } });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.DropOldestRevoked) { Parameters = { UserParameter(user) } });
        await using var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        // The lock's row comes first; then the creation's one row, then the hashes the bounds revoked.
        var outcome = KoboLinkOutcome.NoSuchUser;
        var revoked = new List<byte[]>();
        do
        {
            if (reader.FieldCount == 2 && reader.GetName(1) == "created_at"
                && await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                outcome = reader.GetBoolean(0) ? KoboLinkOutcome.LinkingDeviceRevoked
                    : reader.IsDBNull(1) ? KoboLinkOutcome.NoSuchUser
                    : KoboLinkOutcome.Created;
            }
            else if (reader.FieldCount == 1 && reader.GetName(0) == "secret_hash")
            {
                while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
                {
                    revoked.Add(reader.GetFieldValue<byte[]>(0));
                }
            }
        }
        while (await reader.NextResultAsync(cancellationToken).ConfigureAwait(false));

        return new KoboLinkCreation(outcome, revoked);
    }

    private static async Task<IReadOnlyList<KoboLinkView>?> ListCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.List);
        command.Parameters.Add(UserParameter(user));
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var links = new List<KoboLinkView>();
        var exists = false;
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (reader.IsDBNull(0))
            {
                exists = reader.GetBoolean(4);
                continue;
            }

            links.Add(new KoboLinkView(
                reader.GetString(0),
                reader.GetString(1),
                reader.GetFieldValue<DateTimeOffset>(2),
                reader.IsDBNull(3) ? null : reader.GetFieldValue<DateTimeOffset>(3)));
        }

        // UNION ALL does not promise its branches' order: the newest first, as the query reads them.
        links.Sort(
            static (a, b) => b.CreatedAt.CompareTo(a.CreatedAt) is var byTime and not 0 ? byTime : string.CompareOrdinal(a.Id, b.Id));
        return exists ? links : null;
    }

    private static async Task<KoboLink?> FindCoreAsync(NpgsqlDataSource dataSource, byte[] secretHash, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.Find);
        command.Parameters.Add(new NpgsqlParameter<byte[]> { TypedValue = secretHash });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        return new KoboLink(
            new UserNo(reader.GetInt64(0)),
            reader.GetString(1),
            reader.GetFieldValue<DateTimeOffset>(2),
            reader.IsDBNull(3) ? null : reader.GetFieldValue<DateTimeOffset>(3));
    }

    private static NpgsqlParameter<long> UserParameter(UserNo user) => new() { TypedValue = user.Value };
}
