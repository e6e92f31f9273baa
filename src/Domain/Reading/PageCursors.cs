using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;

namespace Kobo.Sync.Domain.Reading;

/// <summary>
/// Opaque, tamper-evident page cursors. A cursor carries the last id a page returned, relative to
/// the scope (the user's or the book's id prefix) it was issued for, and an HMAC-SHA256 tag over
/// scope and id. A cursor that was altered, made up, or issued for another user or book fails the
/// tag check and is rejected, so a client can neither forge a position nor read across scopes.
/// Format: <c>base64url(id suffix) "." base64url(first 16 bytes of the tag)</c>.
/// </summary>
public sealed class PageCursors
{
    public const int MaxCursorLength = 512;
    private const int TagBytes = 16;
    private readonly byte[] _key;

    /// <param name="key">At least 32 bytes; every instance of the service must use the same key.</param>
    public PageCursors(byte[] key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length < 32)
        {
            throw new ArgumentException("A cursor key needs at least 32 bytes.", nameof(key));
        }

        _key = key;
    }

    public string Issue(string scope, string lastId)
    {
        if (!lastId.StartsWith(scope, StringComparison.Ordinal) || lastId.Length == scope.Length)
        {
            throw new ArgumentException("The id does not lie inside the cursor's scope.", nameof(lastId));
        }

        var suffix = Encoding.UTF8.GetBytes(lastId, scope.Length, lastId.Length - scope.Length);
        Span<byte> tag = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(scope, lastId, tag);
        return Base64Url.EncodeToString(suffix) + "." + Base64Url.EncodeToString(tag[..TagBytes]);
    }

    /// <summary>The last id the cursor names, or an <see cref="InvalidRequestException"/> for field "cursor".</summary>
    public string Resolve(string scope, string cursor)
    {
        var dot = cursor.IndexOf('.', StringComparison.Ordinal);
        if (cursor.Length > MaxCursorLength || dot <= 0 || dot == cursor.Length - 1)
        {
            throw Tampered();
        }

        var suffixText = cursor.AsSpan(0, dot);
        var tagText = cursor.AsSpan(dot + 1);
        Span<byte> suffix = stackalloc byte[MaxCursorLength];
        Span<byte> given = stackalloc byte[MaxCursorLength];
        if (!Base64Url.IsValid(suffixText) || !Base64Url.IsValid(tagText)
            || Base64Url.DecodeFromChars(tagText, given) is var tagLength && tagLength != TagBytes)
        {
            throw Tampered();
        }

        var suffixLength = Base64Url.DecodeFromChars(suffixText, suffix);
        string lastId;
        try
        {
            lastId = scope + new UTF8Encoding(false, true).GetString(suffix[..suffixLength]);
        }
        catch (DecoderFallbackException)
        {
            throw Tampered();
        }

        Span<byte> expected = stackalloc byte[HMACSHA256.HashSizeInBytes];
        Sign(scope, lastId, expected);
        if (suffixLength == 0 || !CryptographicOperations.FixedTimeEquals(expected[..TagBytes], given[..TagBytes]))
        {
            throw Tampered();
        }

        return lastId;
    }

    private void Sign(string scope, string lastId, Span<byte> tag)
    {
        // Scope and id are joined with a byte that occurs in neither, so (a, bc) and (ab, c) differ.
        var message = Encoding.UTF8.GetBytes(scope + "\n" + lastId);
        HMACSHA256.HashData(_key, message, tag);
    }

    private static InvalidRequestException Tampered() =>
        new("cursor", "The cursor is not valid here: pass back, unchanged, a nextCursor this endpoint returned for the same user and book.");
}
