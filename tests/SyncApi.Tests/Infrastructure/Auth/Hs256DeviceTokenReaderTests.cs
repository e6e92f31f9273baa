using System.Globalization;
using System.Security.Cryptography;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Auth;

/// <summary>
/// The service's reader of its issuer's HS256 token shape against the peer it stands in for,
/// Microsoft.IdentityModel's <c>JsonWebTokenHandler</c> with the service's validation parameters: it
/// reads the package's own tokens with the same claims, and it never accepts a token the package
/// refuses, over hand-made edge cases and thousands of mutated tokens.
/// </summary>
[Trait("Category", "Fast")]
public sealed class Hs256DeviceTokenReaderTests
{
    private static readonly DeviceTokenKeys Keys = new(Options.Create(new DeviceTokenOptions { SigningKey = TestTokens.SigningKey }));
    private static readonly JsonWebTokenHandler Package = new() { MapInboundClaims = false };
    private static readonly Hs256DeviceTokenReader Reader = Keys.Reader!;

    [Fact]
    public void ReadsTheTokensThePackageMintsWithTheSameClaims()
    {
        var now = DateTimeOffset.UtcNow;
        foreach (var (user, device) in new[] { (1L, "test-device"), (12_345_678L, "kobo-libra-2"), (9_000_000_000L, "a") })
        {
            var token = Keys.Signer.Mint(user, device, TimeSpan.FromHours(1), now);

            var claims = Reader.TryRead(token, now);

            Assert.Equal(new DeviceTokenClaims(user.ToString(CultureInfo.InvariantCulture), device, now.ToUnixTimeSeconds(), now.ToUnixTimeSeconds() + 3600), claims);
            Assert.Equal(claims, PackageClaims(token));
        }
    }

    [Fact]
    public void AnRs256OrEs256ConfigurationHasNoReader()
    {
        using var rsa = RSA.Create(2048);
        var keys = new DeviceTokenKeys(Options.Create(new DeviceTokenOptions { PublicKeyPem = rsa.ExportSubjectPublicKeyInfoPem() }));

        Assert.Null(keys.Reader);
    }

    public static TheoryData<string, string> LeftToThePackage()
    {
        var now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        string Payload(string members) => "{" + members + "}";
        var good = $"\"iss\":\"kobo-sync\",\"aud\":\"kobo-devices\",\"sub\":\"12\",\"did\":\"d\",\"iat\":{now},\"nbf\":{now}";
        var header = """{"alg":"HS256","typ":"JWT"}""";
        return new TheoryData<string, string>
        {
            { "another key", Signed(header, Payload(good + $",\"exp\":{now + 3600}"), "another-signing-key-that-is-at-least-32-bytes") },
            { "expired beyond the skew", Signed(header, Payload(good.Replace($"\"nbf\":{now}", $"\"nbf\":{now - 7200}", StringComparison.Ordinal) + $",\"exp\":{now - 600}")) },
            { "not yet valid beyond the skew", Signed(header, Payload(good.Replace($"\"nbf\":{now}", $"\"nbf\":{now + 600}", StringComparison.Ordinal) + $",\"exp\":{now + 3600}")) },
            { "no expiry", Signed(header, Payload(good)) },
            { "another issuer", Signed(header, Payload(good.Replace("kobo-sync", "someone", StringComparison.Ordinal) + $",\"exp\":{now + 3600}")) },
            { "another audience", Signed(header, Payload(good.Replace("kobo-devices", "others", StringComparison.Ordinal) + $",\"exp\":{now + 3600}")) },
            { "an audience list", Signed(header, Payload(good.Replace("\"kobo-devices\"", "[\"kobo-devices\"]", StringComparison.Ordinal) + $",\"exp\":{now + 3600}")) },
            { "a claim of its own", Signed(header, Payload(good + $",\"exp\":{now + 3600},\"scope\":\"x\"")) },
            { "a claim named twice", Signed(header, Payload(good + $",\"exp\":{now + 3600},\"sub\":\"13\"")) },
            { "an expiry with a fraction", Signed(header, Payload(good + $",\"exp\":{now + 3600}.5")) },
            { "an expiry as a string", Signed(header, Payload(good + $",\"exp\":\"{now + 3600}\"")) },
            { "a numeric subject", Signed(header, Payload(good.Replace("\"sub\":\"12\"", "\"sub\":12", StringComparison.Ordinal) + $",\"exp\":{now + 3600}")) },
            { "HS384", Signed("""{"alg":"HS384","typ":"JWT"}""", Payload(good + $",\"exp\":{now + 3600}")) },
            { "alg none", Signed("""{"alg":"none"}""", Payload(good + $",\"exp\":{now + 3600}")) },
            { "a key id", Signed("""{"alg":"HS256","kid":"1"}""", Payload(good + $",\"exp\":{now + 3600}")) },
            { "a critical header", Signed("""{"alg":"HS256","crit":["x"],"x":1}""", Payload(good + $",\"exp\":{now + 3600}")) },
            { "alg named twice", Signed("""{"alg":"HS256","alg":"HS256"}""", Payload(good + $",\"exp\":{now + 3600}")) },
            { "a payload that is an array", Signed(header, "[1]") },
            { "trailing JSON", Signed(header, Payload(good + $",\"exp\":{now + 3600}") + "{}") },
        };
    }

    [Theory]
    [MemberData(nameof(LeftToThePackage))]
    public void LeavesEveryOtherShapeToThePackage(string what, string token)
    {
        Assert.True(Reader.TryRead(token, DateTimeOffset.UtcNow) is null, what);
    }

    [Fact]
    public void LeavesPaddingWhitespaceAndANonCanonicalSignatureToThePackage()
    {
        var token = TestTokens.For(12);
        var parts = token.Split('.');
        var now = DateTimeOffset.UtcNow;
        Assert.NotNull(Reader.TryRead(token, now));

        Assert.Null(Reader.TryRead(token + "=", now));
        Assert.Null(Reader.TryRead($"{parts[0]}.{parts[1]} .{parts[2]}", now));
        Assert.Null(Reader.TryRead($"{parts[0]}.{parts[1]}.{parts[2]}.", now));
        // The signature's last character carries 2 bits and 4 unused ones: set one, the bytes decode the same.
        var last = parts[2][^1];
        var sibling = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".IndexOf(last, StringComparison.Ordinal) | 1];
        Assert.Null(Reader.TryRead($"{parts[0]}.{parts[1]}.{parts[2][..^1]}{sibling}", now));
    }

    /// <summary>
    /// Tokens of the issuer's shape with one character changed, one cut, or re-signed with claims
    /// changed, at times around their window: whatever the reader accepts, the package accepts with the
    /// same claims. The mutations include accepted ones (a re-signed token of another user), so the
    /// check is not met by refusing everything.
    /// </summary>
    [Fact]
    public void NeverAcceptsATokenThePackageRefuses()
    {
        var random = new Random(20261129);
        var accepted = 0;
        for (var i = 0; i < 4000; i++)
        {
            var now = DateTimeOffset.UtcNow;
            var token = Mutated(random, now);
            if (Reader.TryRead(token, now) is not { } claims)
            {
                continue;
            }

            accepted++;
            Assert.True(claims == PackageClaims(token), $"the reader accepted what the package did not, or read it otherwise: {token} at {now:O}");
        }

        Assert.True(accepted > 400, $"only {accepted} of 4,000 mutated tokens were accepted: the check says little");
    }

    private static string Mutated(Random random, DateTimeOffset now)
    {
        const string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
        // The package reads its own clock a moment after the reader was given now: times are kept
        // 2 s or more off the edges of the window (now -/+ the 30 s skew), so that moment changes nothing.
        var seconds = now.ToUnixTimeSeconds();
        var issued = seconds - random.Next(0, 3600);
        long Off(long at, long edge) => Math.Abs(at - edge) < 3 ? at + 6 : at;
        var notBefore = Off(seconds + random.Next(-60, 60), seconds + 30);
        var expires = Off(seconds + random.Next(-120, 7200), seconds - 30);
        switch (random.Next(4))
        {
            case 0:
            {
                var token = TestTokens.For(random.Next(1, 1000), issuedAt: DateTimeOffset.FromUnixTimeSeconds(issued).UtcDateTime);
                var at = random.Next(token.Length);
                return string.Concat(token.AsSpan(0, at), alphabet[random.Next(alphabet.Length)].ToString(), token.AsSpan(at + 1));
            }

            case 1:
            {
                var token = TestTokens.For(random.Next(1, 1000));
                return token[..random.Next(token.Length)];
            }

            default:
            {
                var members = new List<string>
                {
                    "\"iss\":\"kobo-sync\"", "\"aud\":\"kobo-devices\"", $"\"sub\":\"{random.Next(1, 1000)}\"", "\"did\":\"d\"",
                    $"\"iat\":{issued}", $"\"nbf\":{notBefore}", $"\"exp\":{expires}",
                };
                if (random.Next(4) == 0)
                {
                    members.RemoveAt(random.Next(members.Count));
                }

                if (random.Next(4) == 0)
                {
                    members.Add(members[random.Next(members.Count)]);
                }

                var shuffled = members.OrderBy(_ => random.Next()).ToList();
                var header = random.Next(6) == 0 ? """{"typ":"JWT","alg":"HS256"}""" : random.Next(5) == 0 ? """{"alg":"HS256"}""" : """{"alg":"HS256","typ":"JWT"}""";
                return Signed(header, "{" + string.Join(',', shuffled) + "}");
            }
        }
    }

    /// <summary>What the package reads from a token it accepts now (its own clock), as the service reads it; null when it refuses.</summary>
    private static DeviceTokenClaims? PackageClaims(string token)
    {
        var result = Package.ValidateTokenAsync(token, Keys.Validation).GetAwaiter().GetResult();
        if (!result.IsValid || JwtDuplicateMembers.Find(token) is not null || result.SecurityToken is not JsonWebToken jwt
            || !jwt.TryGetPayloadValue<string>("sub", out var sub) || !jwt.TryGetPayloadValue<string>("did", out var did))
        {
            return null;
        }

        long? issuedAt = jwt.IssuedAt == DateTime.MinValue ? null : EpochTime.GetIntDate(jwt.IssuedAt);
        return new DeviceTokenClaims(sub, did, issuedAt, EpochTime.GetIntDate(jwt.ValidTo));
    }

    private static string Signed(string header, string payload, string key = TestTokens.SigningKey) =>
        TestTokens.SignedRaw(payload, key, header);
}
