namespace Kobo.Sync.Domain.Devices;

/// <summary>
/// A device of a user as sync knows it: first and last pull, and its acknowledged position (the
/// highest change sequence covered by the sync token it last came back with).
/// </summary>
public sealed record DeviceView(
    string DeviceId, DateTimeOffset FirstSeenAt, DateTimeOffset? LastSyncAt, long Position, DateTimeOffset? RevokedAt);

/// <summary>A page of a user's device list, most recently synced first; <see cref="NextCursor"/> is null on the last page.</summary>
public sealed record DeviceList(IReadOnlyList<DeviceView> Devices, string? NextCursor);

/// <summary>
/// Told at once when a device is revoked, so that the authentication of this instance refuses the
/// device's tokens from the next request on (other instances learn it from the store).
/// </summary>
public interface IRevokedDevices
{
    /// <summary>The allowance added to a revocation's time: a token issued up to it after the revocation counts as revoked.</summary>
    TimeSpan ClockSkew { get; }

    void Revoke(Ids.UserNo user, string deviceId, DateTimeOffset revokedAt);
}
