using System.Buffers.Text;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.Domain.Sync;

/// <summary>
/// Opaque, tamper-evident sync tokens, signed like <see cref="PageCursors"/>: a token carries a
/// <see cref="SyncPosition"/> (the highlight id relative to the user's prefix) and an HMAC-SHA256 tag
/// over the user and the position. A token that was altered, made up or issued to another user fails
/// the tag check. Format: <c>base64url("1|hseq|eseq|ebook|id suffix") "." base64url(16-byte tag)</c>.
/// The tag's domain ("sync-token") differs from the page cursors', so one never passes for the other.
/// </summary>
public sealed class SyncTokens
{
    public const int MaxTokenLength = 512;
    public const string Field = "since";
    private const int TagBytes = 16;
    private const string FormatVersion = "2";
    private readonly byte[] _key;

    /// <param name="key">At least 32 bytes; every instance of the service must use the same key.</param>
    public SyncTokens(byte[] key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length < 32)
        {
            throw new ArgumentException("A token key needs at least 32 bytes.", nameof(key));
        }

        _key = key;
    }

    public string Issue(UserNo user, SyncPosition position)
    {
        var prefix = HighlightId.UserPrefix(user);
        var suffix = position.HighlightId.Length == 0 ? string.Empty
            : position.HighlightId.StartsWith(prefix, StringComparison.Ordinal) ? position.HighlightId[prefix.Length..]
            : throw new ArgumentException("The position's highlight belongs to another user.", nameof(position));
        var payload = Encoding.UTF8.GetBytes(string.Join('|',
            FormatVersion, Number(position.HighlightSeq), Number(position.EntitlementSeq), Number(position.EntitlementBook), Number(position.PagesInSync), suffix));
        Span<byte> tag = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(user, payload, tag);
        return Base64Url.EncodeToString(payload) + "." + Base64Url.EncodeToString(tag[..TagBytes]);
    }

    /// <summary>The position the token names, or an <see cref="InvalidRequestException"/> for field "since".</summary>
    public SyncPosition Resolve(UserNo user, string token)
    {
        var dot = token.IndexOf('.', StringComparison.Ordinal);
        if (token.Length > MaxTokenLength || dot <= 0 || dot == token.Length - 1
            || !Base64Url.IsValid(token.AsSpan(0, dot)) || !Base64Url.IsValid(token.AsSpan(dot + 1)))
        {
            throw Tampered();
        }

        var payload = Base64Url.DecodeFromChars(token.AsSpan(0, dot));
        var given = Base64Url.DecodeFromChars(token.AsSpan(dot + 1));
        Span<byte> expected = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(user, payload, expected);
        if (given.Length != TagBytes || !CryptographicOperations.FixedTimeEquals(expected[..TagBytes], given))
        {
            throw Tampered();
        }

        // Signed by this service, so well formed; checked anyway rather than trusted blindly.
        var parts = Encoding.UTF8.GetString(payload).Split('|');
        if (parts.Length != 6 || parts[0] != FormatVersion
            || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var highlightSeq)
            || !long.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var entitlementSeq)
            || !long.TryParse(parts[3], NumberStyles.None, CultureInfo.InvariantCulture, out var entitlementBook)
            || !int.TryParse(parts[4], NumberStyles.None, CultureInfo.InvariantCulture, out var pagesInSync))
        {
            throw Tampered();
        }

        var id = parts[5].Length == 0 ? string.Empty : HighlightId.UserPrefix(user) + parts[5];
        return new SyncPosition(highlightSeq, id, entitlementSeq, entitlementBook, pagesInSync);
    }

    private void Sign(UserNo user, ReadOnlySpan<byte> payload, Span<byte> tag)
    {
        var header = Encoding.UTF8.GetBytes("sync-token\n" + user + "\n");
        var message = new byte[header.Length + payload.Length];
        header.CopyTo(message, 0);
        payload.CopyTo(message.AsSpan(header.Length));
        HMACSHA256.HashData(_key, message, tag);
    }

    private static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static InvalidRequestException Tampered() =>
        new(Field, "The sync token is not valid: pass back, unchanged, a syncToken this service returned to this user, or none for a full sync.");
}
