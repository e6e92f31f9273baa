using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>A stored KOReader login: whose it is, the device that made it, its key's stored hash, and whether it was revoked.</summary>
public sealed record KoreaderCredential(
    string Username, UserNo User, string LinkingDeviceId, string KeyHash, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>A login as its user sees it (never its key or hash); the linking device is <c>deviceId</c> on the wire.</summary>
public sealed record KoreaderCredentialView(string Username, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>What asking for a login came to.</summary>
public enum KoreaderCredentialOutcome
{
    Created,
    NoSuchUser,

    /// <summary>The asking device was revoked at or after its token was issued.</summary>
    LinkingDeviceRevoked,
}

/// <summary>A new login: the user name and password to type into KOReader, shown once.</summary>
public sealed record KoreaderLogin(string Username, string Password);
