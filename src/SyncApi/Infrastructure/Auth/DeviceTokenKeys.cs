using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>The validation parameters built once from <see cref="DeviceTokenOptions"/>, and the development signer.</summary>
public sealed class DeviceTokenKeys
{
    public DeviceTokenKeys(IOptions<DeviceTokenOptions> options)
    {
        var o = options.Value;
        SecurityKey key;
        string[] algorithms;
        if (!string.IsNullOrWhiteSpace(o.PublicKeyPem))
        {
            (key, algorithms) = ImportPublicKey(o.PublicKeyPem);
        }
        else
        {
            SigningKey = new SymmetricSecurityKey(Encoding.UTF8.GetBytes(o.SigningKey!));
            key = SigningKey;
            algorithms = [SecurityAlgorithms.HmacSha256];
        }

        Issuer = o.Issuer;
        Audience = o.Audience;
        Validation = new TokenValidationParameters
        {
            ValidIssuer = o.Issuer,
            ValidAudience = o.Audience,
            IssuerSigningKey = key,
            ValidAlgorithms = algorithms,
            ValidateIssuer = true,
            ValidateAudience = true,
            ValidateLifetime = true,
            RequireExpirationTime = true,
            RequireSignedTokens = true,
            ValidateIssuerSigningKey = true,
            ClockSkew = TimeSpan.FromSeconds(o.ClockSkewSeconds),
            // Claims keep their JWT names (sub, did): no mapping to long WS-* URIs.
            NameClaimType = DeviceAuthentication.UserClaim,
        };
    }

    public TokenValidationParameters Validation { get; }

    /// <summary>The HS256 key, when one is configured; only it can mint tokens here.</summary>
    public SymmetricSecurityKey? SigningKey { get; }

    public string Issuer { get; }

    public string Audience { get; }

    private static (SecurityKey Key, string[] Algorithms) ImportPublicKey(string pem)
    {
        try
        {
            var rsa = RSA.Create();
            rsa.ImportFromPem(pem);
            return (new RsaSecurityKey(rsa), [SecurityAlgorithms.RsaSha256]);
        }
        catch (Exception ex) when (ex is ArgumentException or CryptographicException)
        {
            var ec = ECDsa.Create();
            ec.ImportFromPem(pem);
            return (new ECDsaSecurityKey(ec), [SecurityAlgorithms.EcdsaSha256]);
        }
    }
}
