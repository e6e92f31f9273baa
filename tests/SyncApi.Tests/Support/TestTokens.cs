using System.Security.Claims;
using System.Text;
using Kobo.Sync.Contracts.Tokens;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>Device tokens for tests, good and deliberately bad, signed like the issuer would.</summary>
public static class TestTokens
{
    public const string SigningKey = "test-signing-key-that-is-at-least-32-bytes";
    public const string CursorKey = "test-cursor-key-that-is-at-least-32-bytes-x";

    /// <summary>The contract's signer with the test key and the service's default issuer and audience.</summary>
    public static DeviceTokenSigner Signer { get; } = new(SigningKey, "kobo-sync", "kobo-devices");

    /// <summary>Settings for a service on <paramref name="connectionString"/>; the keys are <see cref="SyncApiFactory"/>'s defaults.</summary>
    public static Dictionary<string, string?> ServiceSettings(string connectionString) => new()
    {
        ["Storage:ConnectionString"] = connectionString,
    };

    public static string For(
        long user,
        string device = "test-device",
        string key = SigningKey,
        string issuer = "kobo-sync",
        string audience = "kobo-devices",
        DateTime? expires = null,
        string? sub = null,
        DateTime? issuedAt = null)
    {
        var now = DateTime.UtcNow;
        var expiry = expires ?? now.AddHours(1);
        var notBefore = expiry < now ? expiry.AddHours(-1) : now;
        return new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = issuer,
            Audience = audience,
            IssuedAt = issuedAt ?? notBefore,
            NotBefore = notBefore,
            Expires = expiry,
            Subject = new ClaimsIdentity(
            [
                new Claim("sub", sub ?? user.ToString(System.Globalization.CultureInfo.InvariantCulture)),
                new Claim("did", device),
            ]),
            SigningCredentials = new SigningCredentials(
                new SymmetricSecurityKey(Encoding.UTF8.GetBytes(key)), SecurityAlgorithms.HmacSha256),
        });
    }

    /// <summary>
    /// A token whose payload is exactly <paramref name="payloadJson"/> and header <paramref name="headerJson"/>
    /// (HS256 with <paramref name="key"/>, whatever the header says), for tokens no token library would
    /// write, such as one naming a claim twice.
    /// </summary>
    public static string SignedRaw(string payloadJson, string key = SigningKey, string headerJson = """{"alg":"HS256","typ":"JWT"}""")
    {
        static string Segment(byte[] bytes) => Base64UrlEncoder.Encode(bytes);
        var signed = $"{Segment(Encoding.UTF8.GetBytes(headerJson))}.{Segment(Encoding.UTF8.GetBytes(payloadJson))}";
        using var hmac = new System.Security.Cryptography.HMACSHA256(Encoding.UTF8.GetBytes(key));
        return $"{signed}.{Segment(hmac.ComputeHash(Encoding.ASCII.GetBytes(signed)))}";
    }

    /// <summary>An extra claim of 17,000 characters, for payloads past 16 KiB that still fit a request header.</summary>
    public static string PaddingClaim { get; } = $",\"pad\":\"{new string('a', 17_000)}\"";

    /// <summary>The claims of a good token for user 12 with <paramref name="extra"/> members appended, as JSON.</summary>
    public static string PayloadWith(string extra)
    {
        var now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        return $$"""{"iss":"kobo-sync","aud":"kobo-devices","sub":"12","did":"test-device","iat":{{now}},"nbf":{{now}},"exp":{{now + 3600}}{{extra}}}""";
    }
}
