using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// A Kobo link's secret: 32 bytes in base64url (43 characters), carried in the device's
/// <c>api_endpoint</c> path. Its first 24 bytes are random; its last 8 are a tag, the first bytes of
/// HMAC-SHA256 over them with the deployment's link key (kept in the database, the same for every
/// instance). A secret the service never issued fails the tag check with no database read and no
/// look-up slot, so made-up secrets, from however many addresses, never compete with the look-ups of
/// real links. Only a secret's SHA-256 is stored; the secret itself is shown once, to the device that
/// asked for the link.
/// </summary>
public static class KoboLinkSecrets
{
    public const int SecretBytes = 32;

    /// <summary>The length of a secret in base64url without padding.</summary>
    public const int SecretLength = 43;

    /// <summary>The fewest bytes a link key may have.</summary>
    public const int MinKeyBytes = 32;

    private const int NonceBytes = 24;
    private const int TagBytes = SecretBytes - NonceBytes;

    // Signed with the nonce, so that a tag made for anything else under the same key never passes for a link's.
    private static readonly byte[] Context = "kobo-link-secret/1"u8.ToArray();

    /// <summary>A new secret tagged with <paramref name="key"/>.</summary>
    public static string New(ReadOnlySpan<byte> key)
    {
        CheckKey(key);
        Span<byte> secret = stackalloc byte[SecretBytes];
        RandomNumberGenerator.Fill(secret[..NonceBytes]);
        Tag(key, secret[..NonceBytes], secret[NonceBytes..]);
        return Base64Url.EncodeToString(secret);
    }

    /// <summary>Whether <paramref name="secret"/> has a secret's shape: anything else is refused without a look-up.</summary>
    public static bool IsWellFormed(ReadOnlySpan<char> secret)
    {
        if (secret.Length != SecretLength)
        {
            return false;
        }

        foreach (var c in secret)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c != '-' && c != '_')
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Whether <paramref name="secret"/> is well formed and carries the tag of <paramref name="key"/>: only
    /// then can a link have it, so only then is it worth a look-up. Compared in constant time.
    /// </summary>
    public static bool IsIssued(ReadOnlySpan<char> secret, ReadOnlySpan<byte> key)
    {
        CheckKey(key);
        Span<byte> bytes = stackalloc byte[SecretBytes + 1];
        // Anything but the canonical encoding (trailing bits set, say) was not written by New.
        if (!IsWellFormed(secret)
            || Base64Url.DecodeFromChars(secret, bytes, out _, out var written) != System.Buffers.OperationStatus.Done
            || written != SecretBytes)
        {
            return false;
        }

        Span<byte> expected = stackalloc byte[TagBytes];
        Tag(key, bytes[..NonceBytes], expected);
        return CryptographicOperations.FixedTimeEquals(expected, bytes[NonceBytes..SecretBytes]);
    }

    public static byte[] Hash(ReadOnlySpan<char> secret)
    {
        Span<byte> ascii = stackalloc byte[SecretLength];
        var length = Encoding.ASCII.GetBytes(secret, ascii);
        return SHA256.HashData(ascii[..length]);
    }

    private static void Tag(ReadOnlySpan<byte> key, ReadOnlySpan<byte> nonce, Span<byte> tag)
    {
        Span<byte> message = stackalloc byte[Context.Length + NonceBytes];
        Context.CopyTo(message);
        nonce.CopyTo(message[Context.Length..]);
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(key, message, mac);
        mac[..TagBytes].CopyTo(tag);
    }

    private static void CheckKey(ReadOnlySpan<byte> key)
    {
        if (key.Length < MinKeyBytes)
        {
            throw new ArgumentException($"A Kobo link key needs at least {MinKeyBytes} bytes.", nameof(key));
        }
    }
}
