using System.Security.Claims;
using System.Text.Encodings.Web;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Grpc;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Microsoft.Net.Http.Headers;
using GrpcStatusCode = Grpc.Core.StatusCode;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Authenticates a device by the bearer JWT in its <c>Authorization</c> header (never the URL), with
/// the same <see cref="JsonWebTokenHandler"/> validation JwtBearer runs. A token that passed is kept
/// in <see cref="ValidatedTokenCache"/> until it expires, so a device's repeated calls pay for the
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
        return cache.TryGet(tokenChars, now, out var cached)
            ? Checked(cached)
            : ValidateAsync(tokenChars.ToString(), now);
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
            || StringClaim(jwt, DeviceAuthentication.UserClaim) is not { } userText || !UserNo.TryParse(userText, out var userNo)
            || StringClaim(jwt, DeviceAuthentication.DeviceClaim) is not { } device || !DeviceIds.IsValid(device))
        {
            return AuthenticateResult.Fail(
                $"The token lacks a valid 'sub' (user number) or 'did' (device id: {DeviceIds.Rule}) claim.");
        }

        // A revocation refuses the tokens issued up to it, and is kept only as long as such a token can
        // live: a token must say when it was issued, and live no longer than the service allows.
        if (jwt.IssuedAt is var issuedAt && issuedAt == DateTime.MinValue)
        {
            return AuthenticateResult.Fail(MissingIssueTimeMessage);
        }

        var issued = DateTimeOffset.FromUnixTimeSeconds(EpochTime.GetIntDate(issuedAt));
        if (DateTimeOffset.FromUnixTimeSeconds(EpochTime.GetIntDate(result.SecurityToken.ValidTo)) - issued > keys.MaxLifetime)
        {
            return AuthenticateResult.Fail(TooLongLifetimeMessage);
        }

        // One issued "later" by a clock that runs ahead would outlive the revocation of its device.
        if (issued > now + keys.Validation.ClockSkew)
        {
            return AuthenticateResult.Fail(FutureIssueTimeMessage);
        }

        List<Claim> claims = [new Claim(DeviceAuthentication.UserClaim, userText), new Claim(DeviceAuthentication.DeviceClaim, device)];
        var validTo = new DateTimeOffset(DateTime.SpecifyKind(result.SecurityToken.ValidTo, DateTimeKind.Utc));
        var principal = new ClaimsPrincipal(new DeviceIdentity(claims, new DeviceCaller(userNo, device), issued, validTo));
        cache.Add(token, principal, result.SecurityToken.ValidTo, now);
        return await Checked(principal);
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
