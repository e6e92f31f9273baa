using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Devices;

/// <summary>
/// A user's devices, shared by REST and gRPC: listing them (a keyset over last pull and device id, with
/// signed <see cref="DeviceCursors"/>) and revoking one. A device becomes known with its first pull
/// (<see cref="ChangeFeed.DeviceSync"/>); a revocation is told at once to this instance's authentication
/// (<see cref="IRevokedDevices"/>), and to the others through the store.
/// </summary>
public sealed class DeviceRegistry(
    IDeviceStore store, DeviceCursors deviceCursors, SyncSettings settings,
    TimeProvider clock, IRevokedDevices revoked, IDevicePositions positions)
{
    /// <summary>A page of the user's devices, with the paging rules of the highlight pages (<see cref="DeviceReads"/>).</summary>
    public async Task<DeviceList> ListDevicesAsync(
        DeviceCaller caller, UserNo user, int? pageSize, string? cursor, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var size = PageSizes.Resolve(pageSize, DeviceReads.DefaultPageSize, DeviceReads.MaxPageSize);

        var after = string.IsNullOrEmpty(cursor) ? null : deviceCursors.Resolve(user, cursor);

        // The pulls of the user's devices this instance still holds are written first, so the list shows them.
        await positions.FlushAsync(user, cancellationToken).ConfigureAwait(false);

        // One row more than the page tells whether another page follows, without a count.
        var rows = await store.ListDevicesAsync(user, after, size + 1, cancellationToken).ConfigureAwait(false)
            ?? throw ResourceNotFoundException.UnknownUser(user);
        if (rows.Count <= size)
        {
            return new DeviceList(rows, null);
        }

        var devices = rows.Take(size).ToArray();
        return new DeviceList(devices, deviceCursors.Issue(user, new DevicePosition(devices[^1].LastSyncAt, devices[^1].DeviceId)));
    }

    /// <summary>
    /// Revokes a known device of the caller's user (a device may revoke itself); its tokens stop working
    /// at once. An id the service has never seen pull is not found: nothing is stored for it.
    /// </summary>
    public async Task RevokeDeviceAsync(DeviceCaller caller, UserNo user, string? deviceId, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        if (deviceId is null || !DeviceIds.IsValid(deviceId))
        {
            throw new InvalidRequestException("deviceId", $"deviceId must be {DeviceIds.Rule}.");
        }

        var bounds = DeviceBounds.Now(settings.MaxDevicesPerUser, settings.RevocationLifetime, clock);
        await positions.FlushAsync(user, cancellationToken).ConfigureAwait(false);
        var revocation = await store.RevokeDeviceAsync(user, deviceId, bounds, cancellationToken).ConfigureAwait(false);
        switch (revocation.Outcome)
        {
            case RevocationOutcome.UnknownUser:
                throw ResourceNotFoundException.UnknownUser(user);
            case RevocationOutcome.UnknownDevice:
                throw new ResourceNotFoundException($"User {user} has no device with this id: a device becomes known with its first pull.");
            case RevocationOutcome.TooManyRevoked:
                throw new TooManyRevokedDevicesException(bounds.MaxRevoked);
        }

        revoked.Revoke(user, deviceId, revocation.RevokedAt);
    }
}
