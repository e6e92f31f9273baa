namespace Kobo.Sync.Domain.Devices;

/// <summary>
/// What bounds a user's devices at one moment, as the store enforces it: at most
/// <paramref name="MaxDevices"/> devices, of which at most one fewer revoked with the revocation in
/// force. A revocation made at or after <paramref name="InForceSince"/> is in force; an older one has
/// outlived every token it refused.
/// </summary>
public readonly record struct DeviceBounds(int MaxDevices, DateTimeOffset InForceSince)
{
    /// <summary>
    /// The bounds of a user's devices now, by <paramref name="clock"/>: revocations older than
    /// <paramref name="revocationLifetime"/> are no longer in force. The one place they are worked out.
    /// </summary>
    public static DeviceBounds Now(int maxDevicesPerUser, TimeSpan revocationLifetime, TimeProvider clock) =>
        new(maxDevicesPerUser, clock.GetUtcNow() - revocationLifetime);

    /// <summary>Revocations in force a user may hold: one place is always left for a device that comes new.</summary>
    public int MaxRevoked => MaxDevices - 1;
}

/// <summary>
/// How a revocation ended; <see cref="RevokedAt"/> is set only when <see cref="Outcome"/> is <see cref="RevocationOutcome.Revoked"/>.
/// </summary>
public readonly record struct Revocation(RevocationOutcome Outcome, DateTimeOffset RevokedAt = default);

public enum RevocationOutcome
{
    UnknownUser,

    /// <summary>The user has no device with that id: a device becomes known with its first pull.</summary>
    UnknownDevice,

    /// <summary>The user already holds <see cref="DeviceBounds.MaxRevoked"/> revocations in force.</summary>
    TooManyRevoked,
    Revoked,
}
