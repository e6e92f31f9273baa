using System.Security.Claims;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.Authentication;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The identity <see cref="DeviceTokenHandler"/> builds from a valid token: the token's claims, plus
/// the caller, the token's issue time and the rate-limit key worked out once. A validated token's principal is cached and
/// serves every later request of that device, so those requests read these instead of searching and
/// parsing the claims again.
/// </summary>
internal sealed class DeviceIdentity(
    IEnumerable<Claim> claims, DeviceCaller caller, DateTimeOffset issuedAt, DateTimeOffset expiresAt, string? deviceKey = null)
    : ClaimsIdentity(claims, DeviceAuthentication.Scheme, DeviceAuthentication.UserClaim, null)
{
    public DeviceCaller Caller { get; } = caller;

    /// <summary>When the token was issued (whole seconds); revocation compares it.</summary>
    public DateTimeOffset IssuedAt { get; } = issuedAt;

    /// <summary>When the token expires (its <c>exp</c>): a call that outlives it (a long watch) is ended then.</summary>
    public DateTimeOffset ExpiresAt { get; } = expiresAt;

    /// <summary>"user/device": the per-device admission partition (a Kobo link has one of its own).</summary>
    public string DeviceKey { get; } = deviceKey ?? $"{caller.User}/{caller.DeviceId}";

    private Task<AuthenticateResult>? _authenticated;

    /// <summary>
    /// The success answer for <paramref name="principal"/> (the one holding this identity), built on its
    /// first request and handed to every later one. The authentication service wraps it in a ticket of
    /// its own for each request; that ticket shares this one's empty properties, which nothing in a
    /// device request writes (they serve sign-in and challenge flows, which device tokens have none of).
    /// </summary>
    public Task<AuthenticateResult> Authenticated(ClaimsPrincipal principal, string scheme) =>
        _authenticated ??= Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(principal, scheme)));
}
