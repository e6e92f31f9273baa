using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// The statements of a user's device rows, shared by device sync and Kobo links: a device is added only
/// when it is new, in one batch under the user's device lock that first makes room for it, so the
/// user's device count cannot race past <see cref="DeviceBounds.MaxDevices"/>.
/// </summary>
public static class DeviceCommands
{
    /// <summary>The user's device lock (<see cref="DeviceQueries.LockUserDevices"/>), held for the rest of the batch.</summary>
    public static NpgsqlBatchCommand Lock(UserNo user) =>
        new(DeviceQueries.LockUserDevices) { Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } } };

    /// <summary>A statement of one device: $1 user_no, $2 device_id, then <paramref name="more"/>.</summary>
    public static NpgsqlBatchCommand OfDevice(string sql, UserNo user, string deviceId, params NpgsqlParameter[] more)
    {
        var command = new NpgsqlBatchCommand(sql)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = deviceId },
            },
        };
        command.Parameters.AddRange(more);
        return command;
    }

    /// <summary>Revocations in force since (<see cref="DeviceBounds.InForceSince"/>) as a parameter.</summary>
    public static NpgsqlParameter<DateTimeOffset> InForceSince(DeviceBounds bounds) => new()
    {
        TypedValue = bounds.InForceSince.ToUniversalTime(),
    };

    /// <summary>
    /// Runs <paramref name="knownSql"/> (a known device's update: $1 user_no, $2 device_id, and $3
    /// <paramref name="ackedSeq"/> when given); when it changes no row the device is new to the user, and
    /// one batch adds it (<see cref="AddNew(NpgsqlBatch, string, UserNo, string, DeviceBounds, long?)"/>).
    /// </summary>
    public static async Task UpdateOrAddAsync(
        NpgsqlDataSource dataSource, string knownSql, string newSql, UserNo user, string deviceId, long? ackedSeq, DeviceBounds bounds,
        CancellationToken cancellationToken)
    {
        await using (var update = dataSource.CreateCommand(knownSql))
        {
            update.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
            update.Parameters.Add(new NpgsqlParameter<string> { TypedValue = deviceId });
            update.Parameters.AddRange(Acked(ackedSeq));
            if (await update.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) > 0)
            {
                return;
            }
        }

        await using var batch = dataSource.CreateBatch();
        AddNew(batch, newSql, user, deviceId, bounds, ackedSeq);
        await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Adds to <paramref name="batch"/> what adds a device new to the user: the user's device lock, room
    /// made for one more device (<see cref="DeviceQueries.MakeRoomForDevice"/>), then <paramref name="newSql"/>
    /// ($1 user_no, $2 device_id, and $3 <paramref name="ackedSeq"/> when given). Each statement after the
    /// lock sees what the lock's previous holder committed.
    /// </summary>
    public static void AddNew(NpgsqlBatch batch, string newSql, UserNo user, string deviceId, DeviceBounds bounds, long? ackedSeq = null) =>
        AddNew(batch, newSql, user, deviceId, bounds, Acked(ackedSeq));

    /// <summary>As above, <paramref name="newSql"/> taking <paramref name="more"/> after $1 user_no and $2 device_id.</summary>
    public static void AddNew(NpgsqlBatch batch, string newSql, UserNo user, string deviceId, DeviceBounds bounds, NpgsqlParameter[] more)
    {
        batch.BatchCommands.Add(Lock(user));
        batch.BatchCommands.Add(OfDevice(
            DeviceQueries.MakeRoomForDevice, user, deviceId, InForceSince(bounds),
            new NpgsqlParameter<long> { TypedValue = bounds.MaxDevices }));
        batch.BatchCommands.Add(OfDevice(newSql, user, deviceId, more));
    }

    private static NpgsqlParameter[] Acked(long? ackedSeq) => ackedSeq is { } seq ? [new NpgsqlParameter<long> { TypedValue = seq }] : [];
}
