using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// A Kobo link's secret: 32 random bytes in base64url (43 characters), carried in the device's
/// <c>api_endpoint</c> path. Only its SHA-256 is stored; the secret itself is shown once, to the
/// device that asked for the link.
/// </summary>
public static class KoboLinkSecrets
{
    public const int SecretBytes = 32;

    /// <summary>The length of a secret in base64url without padding.</summary>
    public const int SecretLength = 43;

    public static string New() => Base64Url.EncodeToString(RandomNumberGenerator.GetBytes(SecretBytes));

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

    public static byte[] Hash(ReadOnlySpan<char> secret)
    {
        Span<byte> ascii = stackalloc byte[SecretLength];
        var length = Encoding.ASCII.GetBytes(secret, ascii);
        return SHA256.HashData(ascii[..length]);
    }
}
