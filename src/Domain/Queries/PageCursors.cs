using System.Text;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Queries;

/// <summary>
/// Opaque, tamper-evident page cursors. A cursor carries the last id a page returned, relative to
/// the scope (the user's or the book's id prefix) it was issued for, and an HMAC-SHA256 tag over
/// scope and id. A cursor that was altered, made up, or issued for another user or book fails the
/// tag check and is rejected, so a client can neither forge a position nor read across scopes.
/// Format: <c>base64url(id suffix) "." base64url(first 16 bytes of the tag)</c>.
/// </summary>
/// <param name="key">At least 32 bytes (<see cref="SignedEnvelope"/>); every instance of the service must use the same key.</param>
public sealed class PageCursors(byte[] key)
{
    public const int MaxCursorLength = 512;
    private readonly SignedEnvelope _envelope = new(key);

    public string Issue(string scope, string lastId)
    {
        if (!lastId.StartsWith(scope, StringComparison.Ordinal) || lastId.Length == scope.Length)
        {
            throw new ArgumentException("The id does not lie inside the cursor's scope.", nameof(lastId));
        }

        return _envelope.Seal(Context(scope), Encoding.UTF8.GetBytes(lastId, scope.Length, lastId.Length - scope.Length));
    }

    /// <summary>The last id the cursor names, or an <see cref="InvalidRequestException"/> for field "cursor".</summary>
    public string Resolve(string scope, string cursor)
    {
        var suffix = _envelope.Open(Context(scope), cursor, MaxCursorLength);
        if (suffix is null || suffix.Length == 0)
        {
            throw Tampered();
        }

        try
        {
            return scope + new UTF8Encoding(false, true).GetString(suffix);
        }
        catch (DecoderFallbackException)
        {
            throw Tampered();
        }
    }

    /// <summary>
    /// The tag covers scope "\n" id, the id being the scope followed by the suffix the cursor carries;
    /// the newline occurs in neither, so (a, bc) and (ab, c) differ.
    /// </summary>
    private static byte[] Context(string scope) => Encoding.UTF8.GetBytes(scope + "\n" + scope);

    private static InvalidRequestException Tampered() =>
        new(
            "cursor",
            "The cursor is not valid here: pass back, unchanged, a nextCursor this endpoint returned for the same user and book.");
}
