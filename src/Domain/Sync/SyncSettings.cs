namespace Kobo.Sync.Domain.Sync;

/// <summary>The sync rules a deployment may tune.</summary>
/// <param name="MaxClockSkew">A device time further than this ahead of server time is replaced by server time.</param>
/// <param name="MaxDevicesPerUser">The most devices the service keeps for one user; at most one fewer may be revoked at a time.</param>
/// <param name="RevocationLifetime">How long a revocation stays in force: by then every token it refuses has expired.</param>
public sealed record SyncSettings(TimeSpan MaxClockSkew, int MaxDevicesPerUser, TimeSpan RevocationLifetime)
{
    public const int DefaultMaxDevicesPerUser = 50;

    public static SyncSettings Default { get; } = new(TimeSpan.FromMinutes(5), DefaultMaxDevicesPerUser, TimeSpan.FromHours(720) + TimeSpan.FromSeconds(30));
}
