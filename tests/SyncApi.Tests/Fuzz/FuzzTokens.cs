using System.Buffers.Text;
using System.Globalization;
using System.Text;
using CsCheck;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>The Authorization a generated request carries, and the devices it may name should the service accept it.</summary>
internal sealed record FuzzAuth(string? Header, string[] Devices, string Label, bool MustBeRefused = false)
{
    /// <summary>For a Kobo call: the link secret in its path, when not the real one.</summary>
    public string? Secret { get; init; }

    public override string ToString() => $"{Label}: {(Header is null ? "(none)" : OddText.Show(Header))}";
}

/// <summary>
/// Device tokens for the fuzzed user: mostly good ones (so inputs reach the handlers), then good
/// signatures over odd claims (a NUL or an over-long device id, a user number in odd forms, claims of
/// the wrong JSON type, duplicate keys), and tokens that must be refused: expired, not yet valid, issued
/// in the future, foreign key, issuer or audience, alg none, a header that lies about its algorithm,
/// a tampered payload or signature, wrong segment counts, and Authorization headers of other shapes.
/// </summary>
internal static class FuzzTokens
{
    public const string MainDevice = "fuzz-device";

    public static Gen<FuzzAuth> For(long user)
    {
        var good = Enumerable.Range(0, 3)
            .Select(i => new FuzzAuth("Bearer " + TestTokens.For(user, $"{MainDevice}-{i}"), [$"{MainDevice}-{i}"], "good token"))
            .ToArray();
        return Gen.Frequency(
            (80, Gen.OneOf(good)),
            (8, OddClaims(user)),
            (12, Refused(user)));
    }

    private static Gen<FuzzAuth> OddClaims(long user)
    {
        var sub = user.ToString(CultureInfo.InvariantCulture);
        var device = Gen.Frequency((3, OddText.Any), (1, Gen.OneOf("\0", "a\0", new string('d', 128), new string('d', 129), "\ud800")))
            .Select(d =>
            {
                var token = TestTokens.For(user, d);
                // What the service reads back: the token's JSON carries a lone surrogate as U+FFFD.
                var did = new JsonWebToken(token).GetClaim("did").Value;
                return did.Length is > 0 and <= 128
                    ? new FuzzAuth("Bearer " + token, [did], "good signature, odd device id")
                    : new FuzzAuth("Bearer " + token, [], "good signature, device id out of range");
            });
        var subject = Gen.OneOf("01", " 1", "1 ", "+1", "1.0", "-1", "0", "", "\0", "1\0", "9223372036854775808", "ｱ")
            // An empty suffix leaves the user's own number: that token is good, for TestTokens' device.
            .Select(s => new FuzzAuth("Bearer " + TestTokens.For(user, sub: sub + s), s.Length == 0 ? ["test-device"] : [], "good signature, odd sub"));
        // Issuer, audience and expiry right, so the odd claim is what the handler meets; a later duplicate key overrides.
        var exp = DateTimeOffset.UtcNow.AddHours(1).ToUnixTimeSeconds();
        var payload = Gen.OneOf(
                $$""" "sub":{{user}},"did":"d" """,
                $$""" "sub":"{{sub}}","did":["d"] """,
                $$""" "sub":"{{sub}}","did":{"a":"d"} """,
                $$""" "sub":"{{sub}}","did":"d","sub":"2" """,
                $$""" "sub":"{{sub}}","did":"d","did":"\u0000" """,
                $$""" "sub":"{{sub}}","did":"d","exp":"tomorrow" """,
                $$""" "sub":"{{sub}}","did":"d","exp":1e300 """,
                $$""" "sub":"{{sub}}","did":"d","exp":-1 """,
                $$""" "sub":"{{sub}}","did":"d","exp":9223372036854775807 """,
                $$""" "sub":"{{sub}}","did":"d","nbf":99999999999 """,
                $$""" "sub":"{{sub}}","did":"d","iat":"x" """,
                $$""" "sub":"{{sub}}","did":"d","iat":-99999999999 """,
                $$""" "sub":"{{sub}}","did":"d","iss":["kobo-sync"],"aud":{"a":1} """,
                $$""" "sub":"{{sub}}","did":"d","x":{{new string('[', 5000)}}{{new string(']', 5000)}} """)
            .Select(claims => $$"""{"iss":"kobo-sync","aud":"kobo-devices","exp":{{exp}},{{claims}}}""")
            .Select(json => new FuzzAuth("Bearer " + Signed(json), ["d", "\0"], "good signature, odd claims"));
        return Gen.OneOf(device, subject, payload);
    }

    private static Gen<FuzzAuth> Refused(long user)
    {
        var now = DateTime.UtcNow;
        var good = TestTokens.For(user, MainDevice);
        var parts = good.Split('.');
        var header = Encoding.UTF8.GetString(Base64Url.DecodeFromChars(parts[0]));
        var payload = Encoding.UTF8.GetString(Base64Url.DecodeFromChars(parts[1]));
        string Segment(string json) => Base64Url.EncodeToString(Encoding.UTF8.GetBytes(json));
        // Each with whether the service must refuse it for certain (a header repeating "alg" or naming
        // an unknown kid may be read either way, so those only must not break anything).
        var tokens = Gen.OneOf(
            ("expired", TestTokens.For(user, MainDevice, expires: now.AddHours(-2)), true),
            ("foreign key", TestTokens.For(user, MainDevice, key: "another-signing-key-that-is-at-least-32-bytes"), true),
            ("foreign issuer", TestTokens.For(user, MainDevice, issuer: "someone-else"), true),
            ("foreign audience", TestTokens.For(user, MainDevice, audience: "someone-else"), true),
            ("issued in the future", TestTokens.For(user, MainDevice, issuedAt: now.AddHours(1)), true),
            ("alg none", $"{Segment("""{"alg":"none","typ":"JWT"}""")}.{parts[1]}.", true),
            ("header says HS512", $"{Segment(header.Replace("HS256", "HS512", StringComparison.Ordinal))}.{parts[1]}.{parts[2]}", true),
            ("header says RS256", $"{Segment(header.Replace("HS256", "RS256", StringComparison.Ordinal))}.{parts[1]}.{parts[2]}", true),
            ("header with two algs", $"{Segment("""{"alg":"HS256","alg":"none","typ":"JWT"}""")}.{parts[1]}.{parts[2]}", false),
            ("header with jku and kid", $"{Segment("""{"alg":"HS256","kid":"../../etc/passwd","jku":"http://127.0.0.1:1/k"}""")}.{parts[1]}.{parts[2]}", false),
            ("payload for another user", $"{parts[0]}.{Segment(payload.Replace($"\"sub\":\"{user}\"", "\"sub\":\"2\"", StringComparison.Ordinal))}.{parts[2]}", true),
            ("signature cut", $"{parts[0]}.{parts[1]}.{parts[2][..^4]}", true),
            ("signature of zeros", $"{parts[0]}.{parts[1]}.{Base64Url.EncodeToString(new byte[32])}", true),
            ("two segments", $"{parts[0]}.{parts[1]}", true),
            ("four segments", $"{good}.x", true),
            ("five segments", $"{good}.x.y", true),
            ("padding", good + "==", false),
            ("not base64", $"{parts[0]}.!!!.{parts[2]}", true),
            ("header not JSON", $"{Segment("not json")}.{parts[1]}.{parts[2]}", true),
            ("huge", good + new string('A', 7_000), true),
            ("empty segments", "..", true));
        var shaped = Gen.OneOf(
            new FuzzAuth("bearer " + good, [MainDevice], "lower-case scheme"),
            new FuzzAuth("Bearer", [], "scheme alone", true),
            new FuzzAuth("Bearer ", [], "scheme and space", true),
            new FuzzAuth("Bearer  " + good + "  ", [MainDevice], "extra spaces"),
            new FuzzAuth("Basic dXNlcjpwYXNz", [], "basic", true),
            new FuzzAuth("Bearer a b", [], "two words", true),
            new FuzzAuth(good, [], "no scheme", true),
            new FuzzAuth(null, [], "no Authorization", true));
        return Gen.Frequency(
            (3, tokens.Select(t => new FuzzAuth("Bearer " + t.Item2, t.Item3 ? [] : [MainDevice], t.Item1, t.Item3))),
            (1, shaped));
    }

    private static string Signed(string payloadJson) => new JsonWebTokenHandler().CreateToken(
        payloadJson,
        new SigningCredentials(new SymmetricSecurityKey(Encoding.UTF8.GetBytes(TestTokens.SigningKey)), SecurityAlgorithms.HmacSha256));
}
