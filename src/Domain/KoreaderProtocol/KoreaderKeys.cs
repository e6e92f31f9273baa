using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>
/// A KOReader login's secrets. The service makes the password (random, shown once); KOReader's plugin
/// sends the MD5 of it, in hex, as <c>x-auth-key</c> on every call (main.lua: <c>userkey = md5(password)</c>).
/// That key sits in the device's settings file, so it is never stored as sent: only a PBKDF2-SHA256 hash of
/// it, salted, in the form <c>pbkdf2-sha256$iterations$salt$hash</c> (base64), so the count can be raised
/// later without breaking stored hashes.
/// </summary>
public static class KoreaderKeys
{
    public const int Iterations = 100_000;
    private const string Scheme = "pbkdf2-sha256";
    private const int SaltBytes = 16;
    private const int HashBytes = 32;
    private const int PasswordBytes = 15;

    /// <summary>A new password: 120 random bits as 24 lower-case base32 letters and digits, easy to type on a device.</summary>
    public static string NewPassword()
    {
        Span<byte> bytes = stackalloc byte[PasswordBytes];
        RandomNumberGenerator.Fill(bytes);
        const string Alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        var text = new StringBuilder(PasswordBytes * 8 / 5);
        int buffer = 0, bits = 0;
        foreach (var b in bytes)
        {
            buffer = (buffer << 8) | b;
            bits += 8;
            while (bits >= 5)
            {
                bits -= 5;
                text.Append(Alphabet[(buffer >> bits) & 31]);
            }
        }

        return text.ToString();
    }

    /// <summary>The key KOReader sends for <paramref name="password"/>: its MD5 in lower-case hex.</summary>
    public static string KeyOf(string password) =>
        Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(password)));

    /// <summary>The stored form of <paramref name="key"/>.</summary>
    public static string Hash(string key, int iterations = Iterations)
    {
        var salt = RandomNumberGenerator.GetBytes(SaltBytes);
        var hash = Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(key), salt, iterations, HashAlgorithmName.SHA256, HashBytes);
        return string.Join(
            '$', Scheme, iterations.ToString(CultureInfo.InvariantCulture), Convert.ToBase64String(salt), Convert.ToBase64String(hash));
    }

    /// <summary>
    /// Whether <paramref name="key"/> is the one <paramref name="stored"/> was made from (a malformed stored form matches nothing).
    /// </summary>
    public static bool Verify(string key, string stored)
    {
        var parts = stored.Split('$');
        if (parts.Length != 4 || parts[0] != Scheme
            || !int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var iterations) || iterations < 1)
        {
            return false;
        }

        try
        {
            var salt = Convert.FromBase64String(parts[2]);
            var expected = Convert.FromBase64String(parts[3]);
            var actual = Rfc2898DeriveBytes.Pbkdf2(
                Encoding.UTF8.GetBytes(key), salt, iterations, HashAlgorithmName.SHA256, expected.Length);
            return CryptographicOperations.FixedTimeEquals(actual, expected);
        }
        catch (FormatException)
        {
            return false;
        }
    }

    /// <summary>A stored form no key matches, hashed as dearly as a real one: an unknown user name costs what a wrong key does.</summary>
    public static readonly string Decoy = Hash(Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16)));
}
