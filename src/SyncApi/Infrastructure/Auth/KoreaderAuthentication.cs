namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The KOReader login scheme: KOReader's plugin sends a user name and key in <c>x-auth-user</c> and
/// <c>x-auth-key</c> on every call (KOSyncClient.lua, its <c>KOSyncAuth</c> middleware), checked by
/// <see cref="KoreaderAuthHandler"/>. On success the principal is the one the device token scheme builds
/// (<see cref="DeviceIdentity"/>) for the user and the login's linking device.
/// </summary>
public static class KoreaderAuthentication
{
    public const string Scheme = "KoreaderLogin";

    /// <summary>The authorization policy of the KOReader front's authenticated calls.</summary>
    public const string Policy = "KoreaderLogin";

    public const string UserHeader = "x-auth-user";
    public const string KeyHeader = "x-auth-key";

    /// <summary>
    /// Starts the admission partition of a login (<c>koreader:{user}/{device}/{username}</c>): a device's own token bucket.
    /// </summary>
    public const string AdmissionPrefix = "koreader:";

    /// <summary>The longest user name and key looked at; anything longer is refused unread.</summary>
    public const int MaxUsernameLength = 64;

    public const int MaxKeyLength = 128;
}
