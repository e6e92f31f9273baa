using System.Security.Claims;
using System.Text.Encodings.Web;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Microsoft.Net.Http.Headers;
using GrpcStatusCode = Grpc.Core.StatusCode;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Authenticates a device by the bearer JWT in its <c>Authorization</c> header (never the URL). A token
/// of the issuer's own HS256 shape is checked by <see cref="Hs256DeviceTokenReader"/>; any other goes to
/// the same <see cref="JsonWebTokenHandler"/> validation JwtBearer runs. A token that passed is kept in
/// <see cref="ValidatedTokenCache"/> until it expires, so a device's repeated calls pay for the
/// signature check once.
/// </summary>
internal sealed class DeviceTokenHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options,
    ILoggerFactory logger,
    UrlEncoder encoder,
    DeviceTokenKeys keys,
    ValidatedTokenCache cache,
    DeviceRevocationList revocations,
    IProblemDetailsService problems)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    internal const string FutureIssueTimeMessage = "The token's issue time (iat) lies in the future.";
    internal const string MissingIssueTimeMessage = "The token has no issue time (iat).";
    internal const string TooLongLifetimeMessage = "The token's lifetime (exp - iat) is longer than this service accepts.";
    internal static readonly string MissingCallerMessage =
        $"The token lacks a valid 'sub' (user number) or 'did' (device id: {DeviceIds.Rule}) claim.";
    internal const string MissingGrpcTokenMessage = "A bearer token is required in the authorization metadata.";
    private const string BearerPrefix = "Bearer ";
    private static readonly JsonWebTokenHandler Tokens = new() { MapInboundClaims = false };

    private static readonly Task<AuthenticateResult> NoToken = Task.FromResult(AuthenticateResult.NoResult());

    // A cached token is answered without an asynchronous step or a new result (see
    // DeviceIdentity.Authenticated); only a token seen for the first time is validated.
    protected override Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        string? header = Request.Headers.Authorization;
        if (string.IsNullOrEmpty(header))
        {
            return NoToken;
        }

        if (!header.StartsWith(BearerPrefix, StringComparison.OrdinalIgnoreCase) || header.Length == BearerPrefix.Length)
        {
            return Task.FromResult(AuthenticateResult.Fail("The Authorization header must be 'Bearer <token>'."));
        }

        var now = TimeProvider.GetUtcNow();
        var tokenChars = header.AsSpan(BearerPrefix.Length).Trim();
        if (cache.TryGet(tokenChars, now, out var cached))
        {
            return Checked(cached);
        }

        // A token of the issuer's own shape is read without the package; any other, or any doubt, goes to it.
        var token = tokenChars.ToString();
        return keys.Reader?.TryRead(token, now) is { } claims
            ? Admit(token, claims, now)
            : ValidateAsync(token, now);
    }

    private async Task<AuthenticateResult> ValidateAsync(string token, DateTimeOffset now)
    {
        var result = await Tokens.ValidateTokenAsync(token, keys.Validation);
        if (!result.IsValid)
        {
            return AuthenticateResult.Fail(Describe(result.Exception));
        }

        if (JwtDuplicateMembers.Find(token) is { } repeated)
        {
            return AuthenticateResult.Fail($"The token names '{repeated}' more than once.");
        }

        // Read from the token itself, not result.Claims: that builds a ClaimsIdentity of every claim first.
        if (result.SecurityToken is not JsonWebToken jwt
            || StringClaim(jwt, DeviceAuthentication.UserClaim) is not { } user
            || StringClaim(jwt, DeviceAuthentication.DeviceClaim) is not { } device)
        {
            return AuthenticateResult.Fail(MissingCallerMessage);
        }

        long? issuedAt = jwt.IssuedAt == DateTime.MinValue ? null : EpochTime.GetIntDate(jwt.IssuedAt);
        return await Admit(token, new DeviceTokenClaims(user, device, issuedAt, EpochTime.GetIntDate(jwt.ValidTo)), now);
    }

    /// <summary>
    /// The service's own checks, in one order for both paths, on a token whose signature, issuer, audience and
    /// lifetime held; cached when it passes.
    /// </summary>
    private Task<AuthenticateResult> Admit(string token, DeviceTokenClaims claims, DateTimeOffset now)
    {
        if (!UserNo.TryParse(claims.User, out var userNo) || !DeviceIds.IsValid(claims.Device))
        {
            return Task.FromResult(AuthenticateResult.Fail(MissingCallerMessage));
        }

        // A revocation refuses the tokens issued up to it, and is kept only as long as such a token can
        // live: a token must say when it was issued, and live no longer than the service allows.
        if (claims.IssuedAt is not { } issuedAt)
        {
            return Task.FromResult(AuthenticateResult.Fail(MissingIssueTimeMessage));
        }

        var issued = DateTimeOffset.FromUnixTimeSeconds(issuedAt);
        var validTo = DateTimeOffset.FromUnixTimeSeconds(claims.Expires);
        if (validTo - issued > keys.MaxLifetime)
        {
            return Task.FromResult(AuthenticateResult.Fail(TooLongLifetimeMessage));
        }

        // One issued "later" by a clock that runs ahead would outlive the revocation of its device.
        if (issued > now + keys.Validation.ClockSkew)
        {
            return Task.FromResult(AuthenticateResult.Fail(FutureIssueTimeMessage));
        }

        List<Claim> identityClaims =
        [
            new Claim(DeviceAuthentication.UserClaim, claims.User), new Claim(DeviceAuthentication.DeviceClaim, claims.Device),
        ];
        var principal = new ClaimsPrincipal(new DeviceIdentity(identityClaims, new DeviceCaller(userNo, claims.Device), issued, validTo));
        cache.Add(token, principal, validTo.UtcDateTime, now);
        return Checked(principal);
    }

    /// <summary>A claim's value when the token holds it as a JSON string; null when absent or of another JSON type.</summary>
    private static string? StringClaim(JsonWebToken token, string name) =>
        token.TryGetPayloadValue<object>(name, out var value) ? value as string : null;

    // Revocation is checked on every request, cached tokens included, so it applies at once.
    private Task<AuthenticateResult> Checked(ClaimsPrincipal principal)
    {
        var identity = (DeviceIdentity)principal.Identity!;
        return !revocations.IsEmpty && revocations.IsRevoked(identity.Caller.User, identity.Caller.DeviceId, identity.IssuedAt)
            ? Task.FromResult(AuthenticateResult.Fail("This device has been revoked; enrol it again for a new token."))
            : identity.Authenticated(principal, Scheme.Name);
    }

    /// <summary>
    /// A refused caller gets its answer before anything reads its request body: problem+json over REST,
    /// a Trailers-Only UNAUTHENTICATED over gRPC.
    /// </summary>
    protected override async Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        var failure = (await HandleAuthenticateOnceSafeAsync()).Failure?.Message;
        if (GrpcResponses.IsGrpc(Request))
        {
            GrpcResponses.WriteTrailersOnly(Context, GrpcStatusCode.Unauthenticated, failure ?? MissingGrpcTokenMessage);
            return;
        }

        Response.StatusCode = StatusCodes.Status401Unauthorized;
        Response.Headers[HeaderNames.WWWAuthenticate] = failure is null
            ? "Bearer"
            : "Bearer error=\"invalid_token\"";
        await problems.WriteAsync(new ProblemDetailsContext
        {
            HttpContext = Context,
            ProblemDetails = new ProblemDetails
            {
                Status = StatusCodes.Status401Unauthorized,
                Title = "Unauthorized",
                Detail = failure ?? "A bearer token is required in the Authorization header.",
            },
        });
    }

    private static string Describe(Exception? error) => error switch
    {
        SecurityTokenExpiredException => "The token has expired.",
        SecurityTokenNotYetValidException => "The token is not valid yet.",
        SecurityTokenInvalidSignatureException or SecurityTokenSignatureKeyNotFoundException =>
            "The token's signature is not valid.",
        SecurityTokenInvalidAudienceException => "The token was issued for another audience.",
        SecurityTokenInvalidIssuerException => "The token was issued by an unknown issuer.",
        SecurityTokenInvalidAlgorithmException => "The token is signed with an algorithm this service does not accept.",
        SecurityTokenNoExpirationException => "The token has no expiry.",
        _ => "The token is not a valid device token.",
    };
}
