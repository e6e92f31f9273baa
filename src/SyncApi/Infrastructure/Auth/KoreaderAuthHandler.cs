using System.Text.Encodings.Web;
using Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Authenticates a KOReader device by its <c>x-auth-user</c> and <c>x-auth-key</c> headers
/// (<see cref="KoreaderLogins"/>). A missing, unknown, wrong or revoked pair, or one whose linking device was
/// revoked after the login was made, is refused with the reference server's 401 (code 2001) before anything
/// reads the request body; an address over its allowance of refusals gets 429, a check that cannot be made
/// now 503, both with <c>Retry-After</c>. The key is never logged: request lines carry the route template
/// and no header.
/// </summary>
internal sealed class KoreaderAuthHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options,
    ILoggerFactory logger,
    UrlEncoder encoder,
    KoreaderLogins logins,
    DeviceRevocationList revocations)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    private static readonly object VerdictKey = new();

    protected override async Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        var username = Request.Headers[KoreaderAuthentication.UserHeader].ToString();
        var key = Request.Headers[KoreaderAuthentication.KeyHeader].ToString();
        if (username.Length is 0 or > KoreaderAuthentication.MaxUsernameLength || username.Contains(':', StringComparison.Ordinal)
            || key.Length is 0 or > KoreaderAuthentication.MaxKeyLength)
        {
            return AuthenticateResult.Fail(KoreaderErrors.Unauthorized.Message);
        }

        var lookup = await logins.FindAsync(username, key, Context.Connection.RemoteIpAddress, Context.RequestAborted);
        Context.Items[VerdictKey] = lookup;
        if (lookup.Verdict != KoreaderLoginVerdict.Live)
        {
            return AuthenticateResult.Fail(KoreaderErrors.Unauthorized.Message);
        }

        var principal = lookup.Principal!;
        var identity = (DeviceIdentity)principal.Identity!;
        return revocations.IsRevoked(identity.Caller.User, identity.Caller.DeviceId, identity.IssuedAt)
            ? AuthenticateResult.Fail(KoreaderErrors.Unauthorized.Message)
            : AuthenticateResult.Success(new AuthenticationTicket(principal, Scheme.Name));
    }

    protected override Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        var lookup = Context.Items[VerdictKey] is KoreaderLoginLookup known ? known : default;
        var error = lookup.Verdict switch
        {
            KoreaderLoginVerdict.TooManyRefused => KoreaderErrors.TooManyRefused,
            KoreaderLoginVerdict.Busy => KoreaderErrors.Busy,
            _ => KoreaderErrors.Unauthorized,
        };
        if (error != KoreaderErrors.Unauthorized)
        {
            Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(lookup.RetryAfter);
        }

        return KoreaderErrors.WriteAsync(Context, error);
    }
}
