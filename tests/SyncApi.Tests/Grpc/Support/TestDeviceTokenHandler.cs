using System.Security.Claims;
using System.Text.Encodings.Web;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// Stands in for the device token handler under the same scheme name: <c>authorization: Bearer
/// test:{userNo}:{deviceId}</c> authenticates; no header is "no result"; anything else fails.
/// </summary>
public sealed class TestDeviceTokenHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    public const string InvalidTokenMessage = "The device token is not valid.";

    public static string TokenFor(long userNo, string device = "device-1") => $"Bearer test:{userNo}:{device}";

    protected override Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        var header = Request.Headers.Authorization.ToString();
        if (header.Length == 0)
        {
            return Task.FromResult(AuthenticateResult.NoResult());
        }

        var parts = header.StartsWith("Bearer test:", StringComparison.Ordinal) ? header["Bearer test:".Length..].Split(':') : [];
        if (parts.Length != 2)
        {
            return Task.FromResult(AuthenticateResult.Fail(InvalidTokenMessage));
        }

        var identity = new ClaimsIdentity(
            [new Claim(DeviceAuthentication.UserClaim, parts[0]), new Claim(DeviceAuthentication.DeviceClaim, parts[1])],
            DeviceAuthentication.Scheme);
        return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), DeviceAuthentication.Scheme)));
    }
}
