using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Devices;

/// <summary>
/// A user's devices, as the store must provide them: their pulls, their list and their revocation. Implemented by the storage adapter.
/// </summary>
public interface IDeviceStore
{
    /// <summary>
    /// Stores devices' pulls: a known device keeps its latest pull by time, in one statement for them all; a
    /// device new to its user is added, and one new to a user who has <see cref="DeviceBounds.MaxDevices"/>
    /// makes room by dropping the least recently seen devices whose revocation is not in force (never refused).
    /// </summary>
    Task RecordPullsAsync(IReadOnlyList<DevicePull> pulls, DeviceBounds bounds, CancellationToken cancellationToken);

    /// <summary>
    /// Up to <paramref name="limit"/> of the user's devices after <paramref name="after"/> (from the
    /// first when null), most recently synced first (never pulled last), then by id; null when the user
    /// does not exist.
    /// </summary>
    Task<IReadOnlyList<DeviceView>?> ListDevicesAsync(UserNo user, DevicePosition? after, int limit, CancellationToken cancellationToken);

    /// <summary>
    /// Marks a device the user has revoked (a device revoked again takes the later time), unless the
    /// device is unknown or the user already holds <see cref="DeviceBounds.MaxRevoked"/> other
    /// revocations in force. Creates no device.
    /// </summary>
    Task<Revocation> RevokeDeviceAsync(UserNo user, string deviceId, DeviceBounds bounds, CancellationToken cancellationToken);
}
