using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>A stored Kobo link: whose it is, which device made it, and whether it was revoked.</summary>
public sealed record KoboLink(UserNo User, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>A link as its user sees it: its public handle (never the secret or its hash), device and times.</summary>
public sealed record KoboLinkView(string Id, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>What asking for a link came to.</summary>
public enum KoboLinkOutcome
{
    Created,

    /// <summary>The user does not exist.</summary>
    NoSuchUser,

    /// <summary>The asking device was revoked at or after its token was issued (clock skew included): the token is revoked.</summary>
    DeviceRevoked,
}

/// <summary>The outcome of a link request, and the secret hashes of the links it revoked to stay within the bounds.</summary>
public sealed record KoboLinkCreation(KoboLinkOutcome Outcome, IReadOnlyList<byte[]> Revoked);

/// <summary>
/// Kobo links in PostgreSQL (<see cref="KoboLinkQueries"/>), each call in its storage pipeline, except the
/// look-up that authenticates an e-reader (<see cref="LookUpAsync"/>). Only a secret's SHA-256 reaches
/// the store. Links are read from the primary: a device uses its link moments after it was made, before
/// a standby may have it.
/// </summary>
public sealed class KoboLinkStore(NpgsqlDataSource dataSource, StoragePipelines pipelines)
{
    /// <summary>
    /// Stores a link for the user's device, making the device known to the user's devices (so that
    /// revoking it revokes the link) within <paramref name="bounds"/>, and revokes the user's links beyond
    /// the live-link bounds. Refused when the device's revocation is at or after
    /// <paramref name="revokedFrom"/> (the asking token's iat less the clock skew): a revocation made on
    /// any instance and a link made on another agree, whichever the database sees first.
    /// </summary>
    public Task<KoboLinkCreation> CreateAsync(
        UserNo user, string deviceId, byte[] secretHash, DeviceBounds bounds, DateTimeOffset? revokedFrom, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (dataSource, user, deviceId, secretHash, bounds, revokedFrom),
            static (s, ct) => CreateCoreAsync(s.dataSource, s.user, s.deviceId, s.secretHash, s.bounds, s.revokedFrom, ct),
            cancellationToken);

    /// <summary>
    /// The link whose secret hashes to <paramref name="secretHash"/>; null when there is none. Outside
    /// the storage pipelines on purpose: a caller presenting a secret is not authenticated yet, so its
    /// look-up has its own limits (<see cref="Auth.KoboLinkLookups"/>), and its failures must not count
    /// against the circuit the devices' calls share.
    /// </summary>
    public Task<KoboLink?> LookUpAsync(byte[] secretHash, CancellationToken cancellationToken) =>
        DatabaseCancellation.RunAsync((dataSource, secretHash), static (s, ct) => FindCoreAsync(s.dataSource, s.secretHash, ct), cancellationToken);

    /// <summary>The user's links, newest first (all of them: <see cref="KoboLinkQueries.MaxLinksPerUser"/> at most); null when the user does not exist.</summary>
    public Task<IReadOnlyList<KoboLinkView>?> ListAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (dataSource, user),
            static (s, ct) => ListCoreAsync(s.dataSource, s.user, ct),
            cancellationToken);

    /// <summary>
    /// Revokes the user's link <paramref name="linkId"/> (revoking a revoked link changes nothing).
    /// Returns its secret hash, or null when the user has no such link.
    /// </summary>
    public Task<byte[]?> RevokeAsync(UserNo user, byte[] linkId, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (dataSource, user, linkId),
            static async (s, ct) =>
            {
                await using var command = s.dataSource.CreateCommand(KoboLinkQueries.Revoke);
                command.Parameters.Add(UserParameter(s.user));
                command.Parameters.Add(new NpgsqlParameter<byte[]> { TypedValue = s.linkId });
                await using var reader = await command.ExecuteReaderAsync(ct).ConfigureAwait(false);
                return await reader.ReadAsync(ct).ConfigureAwait(false) ? reader.GetFieldValue<byte[]>(0) : null;
            },
            cancellationToken);

    /// <summary>The secret hashes of the links revoked at or after <paramref name="since"/>, with the newest revocation time among them.</summary>
    internal static async Task<(List<byte[]> Hashes, DateTimeOffset? Newest)> RevokedSinceAsync(
        NpgsqlDataSource dataSource, DateTimeOffset since, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.RevokedSince);
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = since.ToUniversalTime() });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var hashes = new List<byte[]>();
        DateTimeOffset? newest = null;
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            hashes.Add(reader.GetFieldValue<byte[]>(0));
            var revokedAt = reader.GetFieldValue<DateTimeOffset>(1);
            newest = newest is { } known && known > revokedAt ? known : revokedAt;
        }

        return (hashes, newest);
    }

    /// <summary>
    /// Records that a linked e-reader synced, as its linking device: that device stays among the user's
    /// recently seen devices (so revoking it still finds it), and is made known again if it was dropped.
    /// </summary>
    public Task TouchDeviceAsync(UserNo user, string deviceId, DeviceBounds bounds, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (dataSource, user, deviceId, bounds),
            static async (s, ct) =>
            {
                await TouchDeviceCoreAsync(s.dataSource, s.user, s.deviceId, s.bounds, ct).ConfigureAwait(false);
                return true;
            },
            cancellationToken);

    private static async Task TouchDeviceCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, string deviceId, DeviceBounds bounds, CancellationToken cancellationToken)
    {
        await DeviceCommands.UpdateOrAddAsync(
            dataSource, KoboLinkQueries.TouchDevice, KoboLinkQueries.EnsureDevice, user, deviceId, null, bounds, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The same as <see cref="CreateAsync"/> outside any pipeline: for the development command, which has none.</summary>
    internal static async Task<KoboLinkCreation> CreateCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, string deviceId, byte[] secretHash, DeviceBounds bounds,
        DateTimeOffset? revokedFrom, CancellationToken cancellationToken)
    {
        // One batch, one implicit transaction, under the user's device lock as adding or revoking a device is.
        await using var batch = dataSource.CreateBatch();
        DeviceCommands.AddNew(batch, KoboLinkQueries.EnsureDevice, user, deviceId, bounds);
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.Create)
        {
            Parameters =
            {
                UserParameter(user),
                new NpgsqlParameter<string> { TypedValue = deviceId },
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
            if (reader.FieldCount == 2 && reader.GetName(1) == "created_at" && await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                outcome = reader.GetBoolean(0) ? KoboLinkOutcome.DeviceRevoked
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

    private static async Task<IReadOnlyList<KoboLinkView>?> ListCoreAsync(NpgsqlDataSource dataSource, UserNo user, CancellationToken cancellationToken)
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
        links.Sort(static (a, b) => b.CreatedAt.CompareTo(a.CreatedAt) is var byTime and not 0 ? byTime : string.CompareOrdinal(a.Id, b.Id));
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
