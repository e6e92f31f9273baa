using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// A stored Kobo link: whose it is, its linking device (the user's own device whose token asked for it;
/// the e-reader calling through the link acts as that device), and whether it was revoked.
/// </summary>
public sealed record KoboLink(UserNo User, string LinkingDeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>
/// A link as its user sees it: its public handle (never the secret or its hash), linking device and times.
/// The linking device is <c>deviceId</c> on the wire.
/// </summary>
public sealed record KoboLinkView(
    string Id, [property: JsonPropertyName("deviceId")] string LinkingDeviceId, DateTimeOffset CreatedAt, DateTimeOffset? RevokedAt);

/// <summary>What asking for a link came to.</summary>
public enum KoboLinkOutcome
{
    Created,

    /// <summary>The user does not exist.</summary>
    NoSuchUser,

    /// <summary>The linking device was revoked at or after its token was issued (clock skew included): the token is revoked.</summary>
    LinkingDeviceRevoked,
}

/// <summary>The outcome of a link request, and the secret hashes of the links it revoked to stay within the bounds.</summary>
public sealed record KoboLinkCreation(KoboLinkOutcome Outcome, IReadOnlyList<byte[]> Revoked);
