using System.Buffers.Text;
using System.Security.Cryptography;

namespace Kobo.Sync.Domain.Requests;

/// <summary>
/// The envelope page cursors and sync tokens travel in:
/// <c>base64url(payload) "." base64url(first 16 bytes of HMAC-SHA256(key, context || payload))</c>.
/// The context (what the value is for and whom it was issued to) is signed but not carried, so a
/// value issued for one context never opens in another. One envelope holds the key it signs with,
/// checked once here for the page cursors, device cursors and sync tokens alike.
/// </summary>
internal sealed class SignedEnvelope
{
    public const int MinKeyBytes = 32;
    private const int TagBytes = 16;
    private readonly byte[] _key;

    /// <param name="key">At least <see cref="MinKeyBytes"/> bytes; every instance of the service must use the same key.</param>
    public SignedEnvelope(byte[] key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length < MinKeyBytes)
        {
            throw new ArgumentException($"A signing key needs at least {MinKeyBytes} bytes.", nameof(key));
        }

        _key = key;
    }

    public string Seal(ReadOnlySpan<byte> context, ReadOnlySpan<byte> payload)
    {
        Span<byte> tag = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(_key, context, payload, tag);
        return Base64Url.EncodeToString(payload) + "." + Base64Url.EncodeToString(tag[..TagBytes]);
    }

    /// <summary>
    /// The payload, or null when <paramref name="sealedValue"/> is malformed, longer than <paramref name="maxLength"/> or not signed for
    /// this context.
    /// </summary>
    public byte[]? Open(ReadOnlySpan<byte> context, string sealedValue, int maxLength)
    {
        var dot = sealedValue.IndexOf('.', StringComparison.Ordinal);
        if (sealedValue.Length > maxLength || dot <= 0 || dot == sealedValue.Length - 1
            || !Base64Url.IsValid(sealedValue.AsSpan(0, dot)) || !Base64Url.IsValid(sealedValue.AsSpan(dot + 1)))
        {
            return null;
        }

        var payload = Base64Url.DecodeFromChars(sealedValue.AsSpan(0, dot));
        var given = Base64Url.DecodeFromChars(sealedValue.AsSpan(dot + 1));
        Span<byte> expected = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(_key, context, payload, expected);
        return given.Length == TagBytes && CryptographicOperations.FixedTimeEquals(expected[..TagBytes], given) ? payload : null;
    }

    private static void Sign(byte[] key, ReadOnlySpan<byte> context, ReadOnlySpan<byte> payload, Span<byte> tag)
    {
        var message = new byte[context.Length + payload.Length];
        context.CopyTo(message);
        payload.CopyTo(message.AsSpan(context.Length));
        HMACSHA256.HashData(key, message, tag);
    }
}
