using System.Buffers;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The claims of a device token whose signature, issuer, audience and lifetime held: <c>sub</c> and
/// <c>did</c> as written, <c>iat</c> (null when absent) and <c>exp</c> in Unix seconds.
/// </summary>
internal readonly record struct DeviceTokenClaims(string User, string Device, long? IssuedAt, long Expires);

/// <summary>
/// A validator for the one token shape this service's issuer writes (RFC 7519 with RFC 7515's compact
/// serialization): header <c>{"alg":"HS256","typ":"JWT"}</c>, a payload of <c>iss</c>, <c>aud</c>,
/// <c>sub</c>, <c>did</c>, <c>iat</c>, <c>nbf</c> and <c>exp</c>, each once. It only ever accepts:
/// a token it cannot accept (another shape, a bad signature, a lapsed time, any doubt) is handed to
/// <c>JsonWebTokenHandler</c>, which decides and words the refusal. So it accepts a subset of what the
/// package accepts (checked against the package in <c>Hs256DeviceTokenReaderTests</c>), and a device's
/// first request skips the package's general machinery: <c>docs/dependencies.md</c> has the measured
/// reason.
/// </summary>
internal sealed class Hs256DeviceTokenReader(byte[] key, string issuer, string audience, TimeSpan clockSkew)
{
    private const int MaxTokenChars = 4096; // the issuer's tokens are about 300; longer goes to the package
    private const int SignatureBytes = 32;
    private static readonly long LatestUnixSeconds = DateTimeOffset.MaxValue.ToUnixTimeSeconds();
    private static readonly SearchValues<char> CompactChars =
        SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.");

    // Keyed once per thread: HMACSHA256.HashData keys a new context on every call, about a third of the check.
    private readonly ThreadLocal<IncrementalHash> _hmac = new(() => IncrementalHash.CreateHMAC(HashAlgorithmName.SHA256, key));
    private readonly byte[] _issuer = Encoding.UTF8.GetBytes(issuer);
    private readonly byte[] _audience = Encoding.UTF8.GetBytes(audience);

    /// <summary>The token's claims when it is valid at <paramref name="now"/>; null to let the package decide.</summary>
    public DeviceTokenClaims? TryRead(ReadOnlySpan<char> token, DateTimeOffset now)
    {
        var firstDot = token.IndexOf('.');
        var secondDot = token.LastIndexOf('.');
        if (token.Length > MaxTokenChars || token.ContainsAnyExcept(CompactChars) || token.Count('.') != 2
            || firstDot == 0 || secondDot == firstDot + 1)
        {
            return null;
        }

        var buffer = ArrayPool<byte>.Shared.Rent(token.Length);
        try
        {
            return SignatureHolds(token, secondDot, buffer) && HeaderIsHs256(token[..firstDot], buffer)
                ? ReadPayload(token[(firstDot + 1)..secondDot], buffer, now)
                : null;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private bool SignatureHolds(ReadOnlySpan<char> token, int secondDot, byte[] buffer)
    {
        Span<byte> given = stackalloc byte[SignatureBytes + 3];
        if (!TryDecode(token[(secondDot + 1)..], given, out var written) || written != SignatureBytes)
        {
            return false;
        }

        // The signed input is the ASCII of the first two segments; anything else is not base64url.
        var signed = token[..secondDot];
        if (Ascii.FromUtf16(signed, buffer, out var length) != OperationStatus.Done)
        {
            return false;
        }

        Span<byte> expected = stackalloc byte[SignatureBytes];
        var hmac = _hmac.Value!;
        hmac.AppendData(buffer.AsSpan(0, length));
        hmac.GetHashAndReset(expected);
        return CryptographicOperations.FixedTimeEquals(expected, given[..SignatureBytes]);
    }

    private static bool HeaderIsHs256(ReadOnlySpan<char> segment, byte[] buffer)
    {
        if (!TryDecode(segment, buffer, out var written))
        {
            return false;
        }

        var reader = new Utf8JsonReader(buffer.AsSpan(0, written));
        bool alg = false, typ = false;
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return false;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (reader.ValueTextEquals("alg"u8) && !alg)
                {
                    alg = reader.Read() && reader.TokenType == JsonTokenType.String && reader.ValueTextEquals("HS256"u8);
                    if (!alg)
                    {
                        return false;
                    }
                }
                else if (reader.ValueTextEquals("typ"u8) && !typ)
                {
                    typ = reader.Read() && reader.TokenType == JsonTokenType.String && reader.ValueTextEquals("JWT"u8);
                    if (!typ)
                    {
                        return false;
                    }
                }
                else
                {
                    return false; // kid, crit, a repeated member: the package decides
                }
            }

            return alg && reader.TokenType == JsonTokenType.EndObject && !reader.Read();
        }
        catch (JsonException)
        {
            return false;
        }
    }

    private DeviceTokenClaims? ReadPayload(ReadOnlySpan<char> segment, byte[] buffer, DateTimeOffset now)
    {
        if (!TryDecode(segment, buffer, out var written))
        {
            return null;
        }

        var reader = new Utf8JsonReader(buffer.AsSpan(0, written));
        string? user = null, device = null;
        long issuedAt = 0, notBefore = 0, expires = 0;
        var seen = Claim.None;
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return null;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var claim = Name(ref reader);
                if (claim == Claim.None || (seen & claim) != 0 || !reader.Read())
                {
                    return null; // another claim, or one named twice: the package decides
                }

                seen |= claim;
                var read = claim switch
                {
                    Claim.Issuer => reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(_issuer),
                    Claim.Audience => reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(_audience),
                    Claim.User => TryString(ref reader, out user),
                    Claim.Device => TryString(ref reader, out device),
                    Claim.IssuedAt => TrySeconds(ref reader, out issuedAt),
                    Claim.NotBefore => TrySeconds(ref reader, out notBefore),
                    _ => TrySeconds(ref reader, out expires),
                };
                if (!read)
                {
                    return null;
                }
            }

            if (seen != Claim.All || reader.TokenType != JsonTokenType.EndObject || reader.Read())
            {
                return null;
            }
        }
        catch (JsonException)
        {
            return null;
        }

        // Valid strictly inside the package's window: not before nbf - skew, not after exp + skew.
        var earliest = (now - clockSkew).ToUnixTimeSeconds();
        var latest = (now + clockSkew).ToUnixTimeSeconds();
        return notBefore < latest && notBefore <= expires && expires > earliest
            ? new DeviceTokenClaims(user!, device!, issuedAt, expires)
            : null;
    }

    private static Claim Name(ref Utf8JsonReader reader) =>
        reader.ValueTextEquals("iss"u8) ? Claim.Issuer
        : reader.ValueTextEquals("aud"u8) ? Claim.Audience
        : reader.ValueTextEquals("sub"u8) ? Claim.User
        : reader.ValueTextEquals("did"u8) ? Claim.Device
        : reader.ValueTextEquals("iat"u8) ? Claim.IssuedAt
        : reader.ValueTextEquals("nbf"u8) ? Claim.NotBefore
        : reader.ValueTextEquals("exp"u8) ? Claim.Expires
        : Claim.None;

    private static bool TryString(ref Utf8JsonReader reader, out string? value)
    {
        value = reader.TokenType == JsonTokenType.String ? reader.GetString() : null;
        return value is not null;
    }

    /// <summary>A whole number of seconds after 1970 that a <see cref="DateTimeOffset"/> holds.</summary>
    private static bool TrySeconds(ref Utf8JsonReader reader, out long seconds)
    {
        seconds = 0;
        return reader.TokenType == JsonTokenType.Number && reader.TryGetInt64(out seconds) && seconds > 0 && seconds <= LatestUnixSeconds;
    }

    /// <summary>
    /// Base64url without padding (the characters were checked), and only its one canonical spelling: a
    /// last character whose unused bits are set is left to the package.
    /// </summary>
    private static bool TryDecode(ReadOnlySpan<char> segment, Span<byte> into, out int written)
    {
        written = 0;
        var unusedBits = (segment.Length % 4) switch { 0 => 0, 2 => 4, 3 => 2, _ => -1 };
        return unusedBits >= 0 && segment.Length > 0
            && (SixBits(segment[^1]) & ((1 << unusedBits) - 1)) == 0
            && Base64Url.TryDecodeFromChars(segment, into, out written);
    }

    private static int SixBits(char c) => c switch
    {
        >= 'A' and <= 'Z' => c - 'A',
        >= 'a' and <= 'z' => c - 'a' + 26,
        >= '0' and <= '9' => c - '0' + 52,
        '-' => 62,
        _ => 63,
    };

    [Flags]
    private enum Claim
    {
        None = 0,
        Issuer = 1,
        Audience = 2,
        User = 4,
        Device = 8,
        IssuedAt = 16,
        NotBefore = 32,
        Expires = 64,
        All = 127,
    }
}
