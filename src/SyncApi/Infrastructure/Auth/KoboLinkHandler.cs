using System.Security.Claims;
using System.Text.Encodings.Web;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Authenticates a Kobo e-reader by the secret in its <c>/kobo/{secret}/</c> path: the secret is
/// hashed (SHA-256) and its link looked up (<see cref="KoboLinkCache"/>, else the store). A link that
/// is unknown, revoked, or whose device was revoked after the link was made is refused with 401 before
/// anything reads the request body. The secret itself is never logged: request lines and spans carry
/// the route template, and the log redactor cuts it out of any other text.
/// </summary>
internal sealed class KoboLinkHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options,
    ILoggerFactory logger,
    UrlEncoder encoder,
    KoboLinkStore links,
    KoboLinkCache cache,
    DeviceRevocationList revocations,
    IProblemDetailsService problems)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    internal const string RefusedMessage = "This Kobo link is unknown or has been revoked; link the device again.";

    protected override async Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        if (Request.RouteValues[KoboLinkAuthentication.SecretRouteValue] is not string secret || !KoboLinkSecrets.IsWellFormed(secret))
        {
            return AuthenticateResult.Fail(RefusedMessage);
        }

        var hash = KoboLinkSecrets.Hash(secret);
        var key = Convert.ToHexString(hash);
        var now = TimeProvider.GetUtcNow();
        if (!cache.TryGet(key, now, out var principal))
        {
            var link = await links.FindAsync(hash, Context.RequestAborted);
            if (link is null || link.RevokedAt is not null)
            {
                return AuthenticateResult.Fail(RefusedMessage);
            }

            List<Claim> claims =
            [
                new Claim(DeviceAuthentication.UserClaim, link.User.ToString()),
                new Claim(DeviceAuthentication.DeviceClaim, link.DeviceId),
            ];
            principal = new ClaimsPrincipal(new DeviceIdentity(
                claims, new DeviceCaller(link.User, link.DeviceId), link.CreatedAt, DateTimeOffset.MaxValue,
                $"{KoboLinkAuthentication.AdmissionPrefix}{link.User}/{link.DeviceId}/{key[..16]}"));
            cache.Add(key, principal, now);
        }

        // A link counts as a token issued when the link was made: revoking its device refuses it.
        var identity = (DeviceIdentity)principal.Identity!;
        return revocations.IsRevoked(identity.Caller.User, identity.Caller.DeviceId, identity.IssuedAt)
            ? AuthenticateResult.Fail(RefusedMessage)
            : AuthenticateResult.Success(new AuthenticationTicket(principal, Scheme.Name));
    }

    protected override async Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        Response.StatusCode = StatusCodes.Status401Unauthorized;
        await problems.WriteAsync(new ProblemDetailsContext
        {
            HttpContext = Context,
            ProblemDetails = new ProblemDetails
            {
                Status = StatusCodes.Status401Unauthorized,
                Title = "Unauthorized",
                Detail = RefusedMessage,
            },
        });
    }
}
