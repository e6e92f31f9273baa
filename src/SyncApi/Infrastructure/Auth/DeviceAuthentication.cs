using System.Security.Claims;
using Kobo.Sync.Contracts.Tokens;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>The device token scheme's name and claims, shared by REST and gRPC.</summary>
public static class DeviceAuthentication
{
    public const string Scheme = "DeviceToken";

    /// <summary>The user the token was issued to (the user number, as text).</summary>
    public const string UserClaim = DeviceTokenClaimNames.User;

    /// <summary>The device the token was issued to.</summary>
    public const string DeviceClaim = DeviceTokenClaimNames.Device;

    /// <summary>The caller of an authenticated principal built by <see cref="DeviceTokenHandler"/>.</summary>
    public static DeviceCaller ToCaller(ClaimsPrincipal principal) =>
        principal.Identity is DeviceIdentity identity
            ? identity.Caller
            : throw new InvalidOperationException("The principal was not authenticated by the device token scheme.");

    /// <summary>When the token that authenticated <paramref name="principal"/> expires.</summary>
    internal static DateTimeOffset ExpiresAt(ClaimsPrincipal principal) =>
        principal.Identity is DeviceIdentity identity
            ? identity.ExpiresAt
            : throw new InvalidOperationException("The principal was not authenticated by the device token scheme.");

    /// <summary>When the token that authenticated <paramref name="principal"/> was issued (its <c>iat</c>, whole seconds).</summary>
    internal static DateTimeOffset IssuedAt(ClaimsPrincipal principal) =>
        principal.Identity is DeviceIdentity identity
            ? identity.IssuedAt
            : throw new InvalidOperationException("The principal was not authenticated by the device token scheme.");

    /// <summary>
    /// Whether the token that authenticated <paramref name="principal"/> still holds at <paramref name="now"/>:
    /// not expired, and its device not revoked since. Authentication checks once per request; a call that
    /// lasts (a watch for changes) checks again before each message it sends.
    /// </summary>
    internal static bool StillHolds(ClaimsPrincipal principal, DeviceRevocationList revocations, DateTimeOffset now) =>
        principal.Identity is DeviceIdentity identity
        && identity.ExpiresAt > now
        && !revocations.IsRevoked(identity.Caller.User, identity.Caller.DeviceId, identity.IssuedAt);
}
