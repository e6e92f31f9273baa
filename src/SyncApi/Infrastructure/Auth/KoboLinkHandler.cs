using System.Text.Encodings.Web;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Authenticates a Kobo e-reader by the secret in its <c>/kobo/{secret}/</c> path: the secret is
/// hashed (SHA-256) and its link found by <see cref="KoboLinkLookups"/> (cache, per-address limit on
/// refused secrets, bounded look-up). A link that is unknown, revoked, or whose device was revoked
/// after the link was made is refused with 401 before anything reads the request body; an address
/// over its allowance of refused secrets gets 429, and a look-up that cannot be made now 503, both
/// with <c>Retry-After</c>. The secret itself is never logged: request lines and spans carry the
/// route template, and the log redactor cuts it out of any other text.
/// </summary>
internal sealed class KoboLinkHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options,
    ILoggerFactory logger,
    UrlEncoder encoder,
    KoboLinkLookups lookups,
    DeviceRevocationList revocations,
    IProblemDetailsService problems)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    internal const string RefusedMessage = "This Kobo link is unknown or has been revoked; link the device again.";
    internal const string TooManyMessage = "Too many unknown or revoked Kobo links from this address; retry later.";
    internal const string BusyMessage = "Kobo links cannot be checked right now; retry later.";

    private static readonly object VerdictKey = new();

    protected override async Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        if (Request.RouteValues[KoboLinkAuthentication.SecretRouteValue] is not string secret || !KoboLinkSecrets.IsWellFormed(secret))
        {
            return AuthenticateResult.Fail(RefusedMessage);
        }

        var lookup = await lookups.FindAsync(secret, Context.Connection.RemoteIpAddress, Context.RequestAborted);
        Context.Items[VerdictKey] = lookup;
        if (lookup.Verdict != KoboLinkVerdict.Live)
        {
            return AuthenticateResult.Fail(lookup.Verdict switch
            {
                KoboLinkVerdict.TooManyRefused => TooManyMessage,
                KoboLinkVerdict.Busy => BusyMessage,
                _ => RefusedMessage,
            });
        }

        // A link counts as a token issued when the link was made: revoking its linking device refuses it.
        var principal = lookup.Principal!;
        var identity = (DeviceIdentity)principal.Identity!;
        return revocations.IsRevoked(identity.Caller.User, identity.Caller.DeviceId, identity.IssuedAt)
            ? AuthenticateResult.Fail(RefusedMessage)
            : AuthenticateResult.Success(new AuthenticationTicket(principal, Scheme.Name));
    }

    protected override async Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        var lookup = Context.Items[VerdictKey] is KoboLinkLookup known ? known : default;
        var (status, title, detail) = lookup.Verdict switch
        {
            KoboLinkVerdict.TooManyRefused => (StatusCodes.Status429TooManyRequests, "Too many requests", TooManyMessage),
            KoboLinkVerdict.Busy => (StatusCodes.Status503ServiceUnavailable, "Service unavailable", BusyMessage),
            _ => (StatusCodes.Status401Unauthorized, "Unauthorized", RefusedMessage),
        };
        Response.StatusCode = status;
        var problem = new ProblemDetails { Status = status, Title = title, Detail = detail };
        if (status != StatusCodes.Status401Unauthorized)
        {
            Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(lookup.RetryAfter);
            problem.Extensions[RetryAdvice.ProblemExtension] = RetryAdvice.Milliseconds(lookup.RetryAfter);
        }

        await problems.WriteAsync(new ProblemDetailsContext { HttpContext = Context, ProblemDetails = problem });
    }
}
