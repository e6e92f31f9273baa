using System.Globalization;

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

    // One string, written in place: a push formats each of its ids, and the prefix's pieces were a string each.
    public override string ToString()
    {
        var key = Key.Value;
        var length = CollectionPrefix.Length + Digits(User.Value) + BookSegment.Length + Digits(Book.Value) + 1 + key.Length;
        return string.Create(length, (User.Value, Book.Value, key), static (span, id) =>
        {
            CollectionPrefix.CopyTo(span);
            var at = CollectionPrefix.Length;
            id.Item1.TryFormat(span[at..], out var written, default, CultureInfo.InvariantCulture);
            at += written;
            BookSegment.CopyTo(span[at..]);
            at += BookSegment.Length;
            id.Item2.TryFormat(span[at..], out written, default, CultureInfo.InvariantCulture);
            at += written;
            span[at++] = '/';
            id.Item3.CopyTo(span[at..]);
        });
    }

    private static int Digits(long value)
    {
        var digits = 1;
        while (value >= 10)
        {
            value /= 10;
            digits++;
        }

        return digits;
    }
}
