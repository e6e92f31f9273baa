using System.Security.Claims;
using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The identity <see cref="DeviceTokenHandler"/> builds from a valid token: the token's claims, plus
/// the caller and its rate-limit key worked out once. A validated token's principal is cached and
/// serves every later request of that device, so those requests read these instead of searching and
/// parsing the claims again.
/// </summary>
internal sealed class DeviceIdentity(IEnumerable<Claim> claims, DeviceCaller caller)
    : ClaimsIdentity(claims, DeviceAuthentication.Scheme, DeviceAuthentication.UserClaim, null)
{
    public DeviceCaller Caller { get; } = caller;

    /// <summary>"user/device": the per-device admission partition.</summary>
    public string DeviceKey { get; } = $"{caller.User}/{caller.DeviceId}";
}
