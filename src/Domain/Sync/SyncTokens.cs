using System.Globalization;
using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.Domain.Sync;

/// <summary>
/// Opaque, tamper-evident sync tokens, signed like <see cref="PageCursors"/>: a token carries a
/// <see cref="SyncPosition"/> (the highlight id relative to the user's prefix) and an HMAC-SHA256 tag
/// over the user and the position. A token that was altered, made up or issued to another user fails
/// the tag check. Format: <c>base64url("2|hseq|eseq|ebook|pages in sync|id suffix") "." base64url(16-byte tag)</c>.
/// The tag's domain ("sync-token") differs from the page cursors', so one never passes for the other.
/// </summary>
public sealed class SyncTokens
{
    public const int MaxTokenLength = 512;
    public const string Field = "since";
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
        return SignedEnvelope.Seal(_key, Context(user), payload);
    }

    /// <summary>The position the token names, or an <see cref="InvalidRequestException"/> for field "since".</summary>
    public SyncPosition Resolve(UserNo user, string token)
    {
        var payload = SignedEnvelope.Open(_key, Context(user), token, MaxTokenLength) ?? throw Tampered();

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

    /// <summary>What the tag covers besides the payload: the token's purpose and its user.</summary>
    private static byte[] Context(UserNo user) => Encoding.UTF8.GetBytes("sync-token\n" + user + "\n");

    private static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static InvalidRequestException Tampered() =>
        new(Field, "The sync token is not valid: pass back, unchanged, a syncToken this service returned to this user, or none for a full sync.");
}
