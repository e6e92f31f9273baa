using System.Security.Claims;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>The device token scheme's name and claims, shared by REST and gRPC.</summary>
public static class DeviceAuthentication
{
    public const string Scheme = "DeviceToken";

    /// <summary>The user the token was issued to (the user number, as text).</summary>
    public const string UserClaim = "sub";

    /// <summary>The device the token was issued to.</summary>
    public const string DeviceClaim = "did";

    /// <summary>When the token was issued (seconds since the epoch), when it says.</summary>
    public const string IssuedAtClaim = "iat";

    /// <summary>The token's issue time, or null when it did not say.</summary>
    public static DateTimeOffset? IssuedAt(ClaimsPrincipal principal) =>
        long.TryParse(principal.FindFirst(IssuedAtClaim)?.Value, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var seconds)
            ? DateTimeOffset.FromUnixTimeSeconds(seconds)
            : null;

    /// <summary>The caller of an authenticated principal built by <see cref="DeviceTokenHandler"/>.</summary>
    public static DeviceCaller ToCaller(ClaimsPrincipal principal)
    {
        if (principal.Identity is DeviceIdentity identity)
        {
            return identity.Caller;
        }

        var user = principal.FindFirst(UserClaim)?.Value;
        var device = principal.FindFirst(DeviceClaim)?.Value;
        if (user is null || device is null || !UserNo.TryParse(user, out var userNo))
        {
            throw new InvalidOperationException("The principal was not authenticated by the device token scheme.");
        }

        return new DeviceCaller(userNo, device);
    }
}
