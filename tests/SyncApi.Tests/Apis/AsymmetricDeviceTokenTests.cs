using System.Security.Claims;
using System.Security.Cryptography;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>Production shape: the issuer keeps an RSA private key, the service holds only the public key.</summary>
public sealed class AsymmetricDeviceTokenTests : IDisposable
{
    private readonly RSA _issuerKey = RSA.Create(2048);
    private readonly SyncApiFactory _service;

    public AsymmetricDeviceTokenTests() =>
        _service = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Auth:SigningKey"] = null,
            ["Auth:PublicKeyPem"] = _issuerKey.ExportSubjectPublicKeyInfoPem(),
        });

    public void Dispose()
    {
        _service.Dispose();
        _issuerKey.Dispose();
    }

    [Fact]
    public async Task ATokenSignedWithTheIssuersPrivateKeyIsAccepted()
    {
        var user = await _service.CreateClient().WithToken(Rs256Token(12)).GetJsonAsync("/v1/users/12", 200);
        Assert.Equal(12, user.GetProperty("userNo").GetInt64());
    }

    [Fact]
    public async Task AnHs256TokenIsRefusedWhenOnlyAPublicKeyIsConfigured()
    {
        var problem = await _service.CreateClient().WithToken(TestTokens.For(12)).GetJsonAsync("/v1/users/12", 401);
        Assert.NotNull(problem.GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ATokenSignedWithAnotherRsaKeyIsRefused()
    {
        using var other = RSA.Create(2048);
        await _service.CreateClient().WithToken(Rs256Token(12, other)).GetJsonAsync("/v1/users/12", 401);
    }

    private string Rs256Token(long user, RSA? key = null) =>
        new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = "kobo-sync",
            Audience = "kobo-devices",
            Expires = DateTime.UtcNow.AddHours(1),
            Subject = new ClaimsIdentity([new Claim("sub", user.ToString(System.Globalization.CultureInfo.InvariantCulture)), new Claim("did", "reader-1")]),
            SigningCredentials = new SigningCredentials(new RsaSecurityKey(key ?? _issuerKey), SecurityAlgorithms.RsaSha256),
        });
}
