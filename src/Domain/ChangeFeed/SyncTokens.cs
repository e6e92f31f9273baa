using System.Globalization;
using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>
/// Opaque, tamper-evident sync tokens, signed like <see cref="PageCursors"/>: a token carries a
/// <see cref="SyncPosition"/> (the highlight id relative to the user's prefix) and an HMAC-SHA256 tag
/// over the user and the position. A token that was altered, made up or issued to another user fails
/// the tag check. Format: <c>base64url("5|hseq|eseq|ebook|pages in sync|rseq|rbook|cseq|collection id|written seq|id suffix") "."
/// base64url(16-byte tag)</c>,
/// the collection id as 32 hexadecimal digits, the written seq the device's last write (<see cref="SyncPosition.WrittenSeq"/>).
/// A position that names no write is issued as format "4" (the same without the written seq), which builds
/// before format "5" read as well.
/// A format "3" token (<c>"3|hseq|eseq|ebook|pages in sync|rseq|rbook|id suffix"</c>, issued before collections
/// were pulled) is still accepted: its collection position is the start. So is a format "2" token
/// (<c>"2|hseq|eseq|ebook|pages in sync|id suffix"</c>, issued before reading states were pulled): its
/// reading state and collection positions are the start.
/// The tag's domain ("sync-token") differs from the page cursors', so one never passes for the other,
/// and each <see cref="SyncTokenKind"/> signs in a domain of its own: a token of the native change feed
/// does not open as a Kobo library sync token, nor the other way round, since each stream moves its
/// position past changes the other does not deliver.
/// </summary>
/// <param name="key">At least 32 bytes (<see cref="SignedEnvelope"/>); every instance of the service must use the same key.</param>
public sealed class SyncTokens(byte[] key)
{
    public const int MaxTokenLength = 512;
    public const string Field = "since";
    private const string FormatVersion = "5";
    private const string FormatBeforeWrites = "4";
    private const string FormatBeforeCollections = "3";
    private const string FormatBeforeReadingStates = "2";
    private readonly SignedEnvelope _envelope = new(key);

    public string Issue(UserNo user, SyncPosition position, SyncTokenKind kind = SyncTokenKind.ChangeFeed)
    {
        var prefix = HighlightId.UserPrefix(user);
        var suffix = position.HighlightId.Length == 0 ? string.Empty
            : position.HighlightId.StartsWith(prefix, StringComparison.Ordinal) ? position.HighlightId[prefix.Length..]
            : throw new ArgumentException("The position's highlight belongs to another user.", nameof(position));
        // A position that names no write is issued as format 4, which the builds before format 5 read too: during
        // a rolling upgrade only a token a push answered (until the pull that reaches the end) needs the new build.
        var (format, written) = position.WrittenSeq == 0
            ? (FormatBeforeWrites, string.Empty)
            : (FormatVersion, "|" + Number(position.WrittenSeq));
        var payload = Encoding.UTF8.GetBytes(string.Create(
            CultureInfo.InvariantCulture,
            $"{format}|{position.HighlightSeq}|{position.EntitlementSeq}|{position.EntitlementBook}|{position.PagesInSync}|" +
            $"{position.ReadingSeq}|{position.ReadingBook}|{position.CollectionSeq}|{position.CollectionId:N}{written}|{suffix}"));
        return _envelope.Seal(Context(user, kind), payload);
    }

    /// <summary>
    /// The position the token names, or an <see cref="InvalidRequestException"/> for field "since" (a token
    /// of another kind among them).
    /// </summary>
    public SyncPosition Resolve(UserNo user, string token, SyncTokenKind kind = SyncTokenKind.ChangeFeed)
    {
        var payload = _envelope.Open(Context(user, kind), token, MaxTokenLength) ?? throw Tampered();

        // Signed by this service, so well formed; checked anyway rather than trusted blindly.
        var parts = Encoding.UTF8.GetString(payload).Split('|');
        var withWrites = parts.Length == 11 && parts[0] == FormatVersion;
        var current = withWrites || (parts.Length == 10 && parts[0] == FormatBeforeWrites);
        var withReadingStates = current || (parts.Length == 8 && parts[0] == FormatBeforeCollections);
        if (!(withReadingStates || (parts.Length == 6 && parts[0] == FormatBeforeReadingStates))
            || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var highlightSeq)
            || !long.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var entitlementSeq)
            || !long.TryParse(parts[3], NumberStyles.None, CultureInfo.InvariantCulture, out var entitlementBook)
            || !int.TryParse(parts[4], NumberStyles.None, CultureInfo.InvariantCulture, out var pagesInSync))
        {
            throw Tampered();
        }

        // Format 2 knew no reading states: the device has seen none yet.
        long readingSeq = 0, readingBook = 0;
        if (withReadingStates && (!long.TryParse(parts[5], NumberStyles.None, CultureInfo.InvariantCulture, out readingSeq)
            || !long.TryParse(parts[6], NumberStyles.None, CultureInfo.InvariantCulture, out readingBook)))
        {
            throw Tampered();
        }

        // Formats 2 and 3 knew no collections: the device has seen none yet.
        long collectionSeq = 0;
        var collectionId = Guid.Empty;
        if (current && (!long.TryParse(parts[7], NumberStyles.None, CultureInfo.InvariantCulture, out collectionSeq)
            || !Guid.TryParseExact(parts[8], "N", out collectionId)))
        {
            throw Tampered();
        }

        // Format 4 knew no writes: the device's last write is unknown to the token.
        long writtenSeq = 0;
        if (withWrites && !long.TryParse(parts[9], NumberStyles.None, CultureInfo.InvariantCulture, out writtenSeq))
        {
            throw Tampered();
        }

        var suffix = parts[^1];
        var id = suffix.Length == 0 ? string.Empty : HighlightId.UserPrefix(user) + suffix;
        return new SyncPosition(
            highlightSeq, id, entitlementSeq, entitlementBook, pagesInSync,
            readingSeq, readingBook, collectionSeq, collectionId, writtenSeq);
    }

    /// <summary>
    /// What the tag covers besides the payload: the token's purpose, its kind and its user. The change
    /// feed's domain is the one its tokens were always signed in, so the tokens devices hold stay valid.
    /// </summary>
    private static byte[] Context(UserNo user, SyncTokenKind kind) => Encoding.UTF8.GetBytes(kind switch
    {
        SyncTokenKind.ChangeFeed => "sync-token\n" + user + "\n",
        SyncTokenKind.KoboLibrary => "kobo-library-sync-token\n" + user + "\n",
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not a sync token kind."),
    });

    private static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static InvalidRequestException Tampered() =>
        new(
            Field,
            "The sync token is not valid: pass back, unchanged, a syncToken this service returned to this user, or none for a full sync.");
}

/// <summary>Which stream a sync token belongs to; a token opens only in the stream that issued it.</summary>
public enum SyncTokenKind
{
    /// <summary>
    /// The native change feed (REST and gRPC pulls, <c>WatchChanges</c>): highlights, ownership, reading states, collections.
    /// </summary>
    ChangeFeed,

    /// <summary>The Kobo library sync (<c>/v1/library/sync</c>): ownership, reading states and collections, no highlights.</summary>
    KoboLibrary,
}
