namespace Kobo.Sync.Domain.Ids;

/// <summary>
/// A highlight's document id: <c>highlights/users{userNo}-ebooks/{bookNo}/{key}</c>.
/// The owner and the book lead the id so that a prefix selects them without an index:
/// <see cref="UserPrefix"/> selects one user, <see cref="BookPrefix"/> one user's book.
/// The '-' after the user number and the '/' after the book number end each number, so
/// user 12's prefix never matches user 123 and book 5's never matches book 56.
/// </summary>
public readonly record struct HighlightId(UserNo User, BookNo Book, HighlightKey Key)
{
    private const string CollectionPrefix = "highlights/users";
    private const string BookSegment = "-ebooks/";

    public static string UserPrefix(UserNo user) => $"{CollectionPrefix}{user}-";

    public static string BookPrefix(UserNo user, BookNo book) => $"{CollectionPrefix}{user}{BookSegment}{book}/";

    public static bool TryParse(ReadOnlySpan<char> id, out HighlightId highlightId)
    {
        highlightId = default;
        if (!id.StartsWith(CollectionPrefix, StringComparison.Ordinal))
        {
            return false;
        }

        var rest = id[CollectionPrefix.Length..];
        var dash = rest.IndexOf('-');
        if (dash < 0 || !UserNo.TryParse(rest[..dash], out var user))
        {
            return false;
        }

        rest = rest[dash..];
        if (!rest.StartsWith(BookSegment, StringComparison.Ordinal))
        {
            return false;
        }

        rest = rest[BookSegment.Length..];
        var slash = rest.IndexOf('/');
        if (slash < 0
            || !BookNo.TryParse(rest[..slash], out var book)
            || !HighlightKey.TryParse(rest[(slash + 1)..], out var key))
        {
            return false;
        }

        highlightId = new HighlightId(user, book, key);
        return true;
    }

    public override string ToString() => BookPrefix(User, Book) + Key.Value;
}
