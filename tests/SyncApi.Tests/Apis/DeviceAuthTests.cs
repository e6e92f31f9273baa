using System.Security.Claims;
using System.Text;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>Who may read what: bearer tokens checked on every device endpoint.</summary>
public sealed class DeviceAuthTests : IClassFixture<DemoDatabase>, IDisposable
{
    private const string UserPath = "/v1/users/12";
    private readonly SyncApiFactory _service;

    public DeviceAuthTests(DemoDatabase database) =>
        _service = new SyncApiFactory(TestTokens.ServiceSettings(database.ConnectionString));

    public void Dispose() => _service.Dispose();

    [Theory]
    [InlineData(UserPath)]
    [InlineData(UserPath + "/highlights")]
    [InlineData(UserPath + "/books/5/highlights")]
    public async Task ARequestWithoutATokenIsUnauthorized(string path)
    {
        using var response = await _service.CreateClient().GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
        Assert.Equal(401, (int)response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("Bearer", response.Headers.WwwAuthenticate.Single().Scheme);
    }

    [Fact]
    public async Task AnExpiredTokenIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, expires: DateTime.UtcNow.AddMinutes(-10)), "expired");

    [Fact]
    public async Task ATokenIssuedInTheFutureIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, issuedAt: DateTime.UtcNow.AddMinutes(10)), "issue time (iat) lies in the future");

    [Fact]
    public async Task ATokenIssuedWithinTheClockSkewAheadIsAccepted()
    {
        using var client = _service.CreateClient();
        client.DefaultRequestHeaders.Authorization = new("Bearer", TestTokens.For(12, issuedAt: DateTime.UtcNow.AddSeconds(10)));

        using var response = await client.GetAsync(new Uri(UserPath, UriKind.Relative), TestTimeout.Token);

        Assert.Equal(200, (int)response.StatusCode);
    }

    [Fact]
    public async Task ATokenLivingLongerThanTheMaxTokenLifetimeIsUnauthorizedAndOneLivingExactlyThatLongIsAccepted()
    {
        var issued = DateTime.UtcNow;

        await AssertUnauthorized(TestTokens.For(12, issuedAt: issued, expires: issued.AddHours(720).AddSeconds(1)), "lifetime (exp - iat)");
        await _service.CreateClient().WithToken(TestTokens.For(12, issuedAt: issued, expires: issued.AddHours(720))).GetJsonAsync(UserPath, 200);
    }

    [Fact]
    public async Task ATokenWithoutAnIssueTimeIsUnauthorized()
    {
        // The handler's defaults would add iat (and nbf); this issuer leaves them out.
        var token = new JsonWebTokenHandler { SetDefaultTimesOnTokenCreation = false }.CreateToken(new SecurityTokenDescriptor
        {
            Issuer = "kobo-sync",
            Audience = "kobo-devices",
            Expires = DateTime.UtcNow.AddHours(1),
            Subject = new ClaimsIdentity([new Claim("sub", "12"), new Claim("did", "reader-1")]),
            SigningCredentials = new SigningCredentials(
                new SymmetricSecurityKey(Encoding.UTF8.GetBytes(TestTokens.SigningKey)), SecurityAlgorithms.HmacSha256),
        });

        await AssertUnauthorized(token, "no issue time (iat)");
    }

    [Fact]
    public async Task ATokenWithAWrongSignatureIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, key: "some-other-key-that-is-at-least-32-bytes"), "signature");

    [Fact]
    public async Task ATokenForAnotherAudienceIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, audience: "kobo-web"), "audience");

    [Fact]
    public async Task ATokenFromAnotherIssuerIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, issuer: "someone-else"), "issuer");

    [Fact]
    public async Task ATokenWhoseSubjectIsNotAUserNumberIsUnauthorized() =>
        await AssertUnauthorized(TestTokens.For(12, sub: "users/12"), "sub");

    [Theory]
    [InlineData("{\"sub\":\"12\",\"did\":7}", "'did'")]
    [InlineData("{\"sub\":\"12\",\"did\":[\"reader-1\"]}", "'did'")]
    [InlineData("{\"sub\":[\"12\"],\"did\":\"reader-1\"}", "not a valid device token")]
    public async Task ATokenWhoseUserOrDeviceIsNotAJsonStringIsUnauthorized(string claims, string reason)
    {
        var now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        var payload = claims.TrimEnd('}') + $",\"iss\":\"kobo-sync\",\"aud\":\"kobo-devices\",\"iat\":{now},\"exp\":{now + 3600}}}";
        var token = new JsonWebTokenHandler().CreateToken(payload, new SigningCredentials(
            new SymmetricSecurityKey(Encoding.UTF8.GetBytes(TestTokens.SigningKey)), SecurityAlgorithms.HmacSha256));

        await AssertUnauthorized(token, reason);
    }

    [Theory]
    [InlineData("kobo\0libra")]
    [InlineData("kobo\nlibra")]
    [InlineData("\u0085")]
    public async Task ATokenWhoseDeviceIdHoldsAControlCharacterIsUnauthorized(string deviceId) =>
        await AssertUnauthorized(TestTokens.For(12, device: deviceId), "did");

    [Fact]
    public async Task AGarbledTokenIsUnauthorized() =>
        await AssertUnauthorized("not.a.token", "not a valid");

    [Fact]
    public async Task AnUnsignedTokenIsUnauthorized()
    {
        var parts = TestTokens.For(12).Split('.');
        var header = Convert.ToBase64String("{\"alg\":\"none\",\"typ\":\"JWT\"}"u8.ToArray()).TrimEnd('=');
        await AssertUnauthorized($"{header}.{parts[1]}.", string.Empty);
    }

    [Fact]
    public async Task AHandSignedTokenIsAccepted()
    {
        // The control for the next test: the same signing, without the repeated claim, passes.
        var client = _service.CreateClient().WithToken(TestTokens.SignedRaw(TestTokens.PayloadWith(string.Empty)));
        await client.GetJsonAsync(UserPath, 200);
    }

    [Theory]
    [InlineData(",\"sub\":\"13\"", "sub")]
    [InlineData(",\"did\":\"another-device\"", "did")]
    [InlineData(",\"exp\":4102444800", "exp")]
    public async Task ATokenNamingAClaimTwiceIsUnauthorized(string repeated, string claim) =>
        await AssertUnauthorized(TestTokens.SignedRaw(TestTokens.PayloadWith(repeated)), $"'{claim}' more than once");

    [Fact]
    public async Task ALongTokenNamingAClaimTwiceIsUnauthorized()
    {
        // A padding claim takes the payload past 16 KiB, within the 32 KiB a request header may hold.
        var token = TestTokens.SignedRaw(TestTokens.PayloadWith(TestTokens.PaddingClaim + ",\"sub\":\"13\""));
        Assert.InRange(token.Length, 20_000, 30_000);

        await AssertUnauthorized(token, "'sub' more than once");
    }

    [Fact]
    public async Task ADeviceOfAnotherUserIsForbidden()
    {
        var client = _service.CreateClient().WithToken(TestTokens.For(123));
        foreach (var path in new[] { UserPath, UserPath + "/highlights", UserPath + "/books/5/highlights" })
        {
            var problem = await client.GetJsonAsync(path, 403);
            Assert.Contains("123", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task ATokenInTheQueryStringIsIgnored()
    {
        using var response = await _service.CreateClient()
            .GetAsync(new Uri($"{UserPath}?access_token={TestTokens.For(12)}", UriKind.Relative), TestTimeout.Token);
        Assert.Equal(401, (int)response.StatusCode);
    }

    private async Task AssertUnauthorized(string token, string reason)
    {
        var problem = await _service.CreateClient().WithToken(token).GetJsonAsync(UserPath, 401);
        Assert.Contains(reason, problem.GetProperty("detail").GetString(), StringComparison.OrdinalIgnoreCase);
    }
}
