using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>A stored Kobo link: whose it is, which device made it, and whether it was revoked.</summary>
public sealed record KoboLink(UserNo User, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>A link as its user sees it: its public handle (never the secret or its hash), device and times.</summary>
public sealed record KoboLinkView(string Id, string DeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>What asking for a link came to.</summary>
public enum KoboLinkOutcome
{
    Created,

    /// <summary>The user does not exist.</summary>
    NoSuchUser,

    /// <summary>The asking device was revoked at or after its token was issued (clock skew included): the token is revoked.</summary>
    DeviceRevoked,
}

/// <summary>The outcome of a link request, and the secret hashes of the links it revoked to stay within the bounds.</summary>
public sealed record KoboLinkCreation(KoboLinkOutcome Outcome, IReadOnlyList<byte[]> Revoked);
