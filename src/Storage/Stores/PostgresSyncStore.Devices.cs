using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// A user's devices: recorded at each pull, listed, revoked. A device is added only by its own first
/// pull, and adding one or revoking one runs under the user's device lock (<see cref="DeviceQueries.LockUserDevices"/>),
/// so the user's device count and revocations in force cannot race past their bounds. Each is one
/// batch, which PostgreSQL runs as one implicit transaction: the lock lasts as long as the batch.
/// </summary>
public sealed partial class PostgresSyncStore : IDeviceStore
{
    public async Task RecordPullsAsync(IReadOnlyList<DevicePull> pulls, DeviceBounds bounds, CancellationToken cancellationToken)
    {
        if (pulls.Count == 0)
        {
            return;
        }

        var known = new HashSet<(long, string)>();
        await using (var command = dataSource.CreateCommand(DeviceQueries.RecordPulls))
        {
            command.Parameters.Add(new NpgsqlParameter<long[]> { TypedValue = [.. pulls.Select(p => p.User.Value)] });
            command.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = [.. pulls.Select(p => p.DeviceId)] });
            command.Parameters.Add(new NpgsqlParameter<long?[]> { TypedValue = [.. pulls.Select(p => p.AckedSeq)] });
            command.Parameters.Add(new NpgsqlParameter<DateTimeOffset[]> { TypedValue = [.. pulls.Select(p => p.At.ToUniversalTime())] });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                known.Add((reader.GetInt64(0), reader.GetString(1)));
            }
        }

        // A device new to its user: one batch each, under that user's device lock, as any device is added.
        foreach (var pull in pulls.Where(p => !known.Contains((p.User.Value, p.DeviceId))))
        {
            await using var batch = dataSource.CreateBatch();
            DeviceCommands.AddNew(batch, DeviceQueries.AddPulledDevice, pull.User, pull.DeviceId, bounds,
                [
                    new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Bigint, Value = (object?)pull.AckedSeq ?? DBNull.Value },
                    new NpgsqlParameter<DateTimeOffset> { TypedValue = pull.At.ToUniversalTime() },
                ]);
            await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    public async Task<IReadOnlyList<DeviceView>?> ListDevicesAsync(
        UserNo user, DevicePosition? after, int limit, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        await using var command = dataSource.CreateCommand(DeviceQueries.ListDevices);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Text, Value = (object?)after?.DeviceId ?? DBNull.Value });
        command.Parameters.Add(new NpgsqlParameter
        {
            NpgsqlDbType = NpgsqlDbType.TimestampTz,
            Value = after?.LastSyncAt is { } at ? at.ToUniversalTime() : DBNull.Value,
        });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = limit });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        var devices = new List<DeviceView>();
        do
        {
            if (reader.IsDBNull(0))
            {
                break;
            }

            devices.Add(new DeviceView(
                reader.GetString(0),
                reader.GetFieldValue<DateTimeOffset>(1),
                reader.IsDBNull(2) ? null : reader.GetFieldValue<DateTimeOffset>(2),
                reader.GetInt64(3),
                reader.IsDBNull(4) ? null : reader.GetFieldValue<DateTimeOffset>(4)));
        }
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false));

        return devices;
    }

    public async Task<Revocation> RevokeDeviceAsync(UserNo user, string deviceId, DeviceBounds bounds, CancellationToken cancellationToken)
    {
        // One batch, one implicit transaction: the lock is held for the batch alone.
        await using var batch = dataSource.CreateBatch();
        batch.BatchCommands.Add(DeviceCommands.Lock(user));
        batch.BatchCommands.Add(DeviceCommands.OfDevice(
            DeviceQueries.RevokeDevice, user, deviceId, DeviceCommands.InForceSince(bounds),
            new NpgsqlParameter<long> { TypedValue = bounds.MaxRevoked }));
        // The device's Kobo links are revoked with it, for good: the device's revocation lapses, theirs does not.
        batch.BatchCommands.Add(DeviceCommands.OfDevice(KoboLinkQueries.RevokeWithDevice, user, deviceId));
        // So are its KOReader logins.
        batch.BatchCommands.Add(DeviceCommands.OfDevice(KoreaderQueries.RevokeWithDevice, user, deviceId));
        await using var reader = await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        return (
                UserExists: reader.GetBoolean(0), Known: reader.GetBoolean(1), Revoked: !reader.IsDBNull(2), AtLimit: reader.GetBoolean(3))
            switch
        {
            { UserExists: false } => new Revocation(RevocationOutcome.UnknownUser),
            { Revoked: true } => new Revocation(RevocationOutcome.Revoked, reader.GetFieldValue<DateTimeOffset>(2)),
            { Known: true, AtLimit: true } => new Revocation(RevocationOutcome.TooManyRevoked),
            // Unknown, or removed between the statement's look and its update (its revocation had lapsed).
            _ => new Revocation(RevocationOutcome.UnknownDevice),
        };
    }
}
