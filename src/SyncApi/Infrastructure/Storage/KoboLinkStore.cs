using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>A stored Kobo link: whose it is, which device made it, and whether it was revoked.</summary>
public sealed record KoboLink(UserNo User, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>
/// Kobo links in PostgreSQL (<see cref="KoboLinkQueries"/>), each call in its storage pipeline, except the
/// look-up that authenticates an e-reader (<see cref="LookUpAsync"/>). Only a secret's SHA-256 reaches the store. Links are read from the primary: a device uses its link
/// moments after it was made, before a standby may have it.
/// </summary>
public sealed class KoboLinkStore(NpgsqlDataSource dataSource, StoragePipelines pipelines)
{
    /// <summary>
    /// Stores a link for the user's device, making the device known to the user's devices (so that
    /// revoking it revokes the link) within <paramref name="bounds"/>. Null when the user does not exist.
    /// </summary>
    public Task<DateTimeOffset?> CreateAsync(
        UserNo user, string deviceId, byte[] secretHash, DeviceBounds bounds, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (dataSource, user, deviceId, secretHash, bounds),
            static (s, ct) => CreateCoreAsync(s.dataSource, s.user, s.deviceId, s.secretHash, s.bounds, ct),
            cancellationToken);

    /// <summary>
    /// The link whose secret hashes to <paramref name="secretHash"/>; null when there is none. Outside
    /// the storage pipelines on purpose: a caller presenting a secret is not authenticated yet, so its
    /// look-up has its own limits (<see cref="Auth.KoboLinkLookups"/>), and its failures must not count
    /// against the circuit the devices' calls share.
    /// </summary>
    public Task<KoboLink?> LookUpAsync(byte[] secretHash, CancellationToken cancellationToken) =>
        DatabaseCancellation.RunAsync((dataSource, secretHash), static (s, ct) => FindCoreAsync(s.dataSource, s.secretHash, ct), cancellationToken);

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
        await using (var touch = dataSource.CreateCommand(KoboLinkQueries.TouchDevice))
        {
            touch.Parameters.Add(UserParameter(user));
            touch.Parameters.Add(new NpgsqlParameter<string> { TypedValue = deviceId });
            if (await touch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) > 0)
            {
                return;
            }
        }

        await using var batch = dataSource.CreateBatch();
        AddEnsureDevice(batch, user, deviceId, bounds);
        await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    private static void AddEnsureDevice(NpgsqlBatch batch, UserNo user, string deviceId, DeviceBounds bounds)
    {
        batch.BatchCommands.Add(new NpgsqlBatchCommand(SyncQueries.LockUserDevices) { Parameters = { UserParameter(user) } });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(SyncQueries.MakeRoomForDevice)
        {
            Parameters =
            {
                UserParameter(user),
                new NpgsqlParameter<string> { TypedValue = deviceId },
                new NpgsqlParameter<DateTimeOffset> { TypedValue = bounds.InForceSince.ToUniversalTime() },
                new NpgsqlParameter<long> { TypedValue = bounds.MaxDevices },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.EnsureDevice)
        {
            Parameters = { UserParameter(user), new NpgsqlParameter<string> { TypedValue = deviceId } },
        });
    }

    /// <summary>The same as <see cref="CreateAsync"/> outside any pipeline: for the development command, which has none.</summary>
    internal static async Task<DateTimeOffset?> CreateCoreAsync(
        NpgsqlDataSource dataSource, UserNo user, string deviceId, byte[] secretHash, DeviceBounds bounds, CancellationToken cancellationToken)
    {
        // One batch, one implicit transaction, under the user's device lock as adding a device is.
        await using var batch = dataSource.CreateBatch();
        AddEnsureDevice(batch, user, deviceId, bounds);
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.Create)
        {
            Parameters =
            {
                UserParameter(user),
                new NpgsqlParameter<string> { TypedValue = deviceId },
                new NpgsqlParameter<byte[]> { TypedValue = secretHash },
            },
        });
        batch.BatchCommands.Add(new NpgsqlBatchCommand(KoboLinkQueries.RevokeOldest)
        {
            Parameters = { UserParameter(user), new NpgsqlParameter<string> { TypedValue = deviceId } },
        });
        await using var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        // The lock's row comes first; the link's created_at is the only other result with rows.
        do
        {
            if (reader.FieldCount == 1 && reader.GetName(0) == "created_at")
            {
                return await reader.ReadAsync(cancellationToken).ConfigureAwait(false)
                    ? reader.GetFieldValue<DateTimeOffset>(0)
                    : null;
            }
        }
        while (await reader.NextResultAsync(cancellationToken).ConfigureAwait(false));

        return null;
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
