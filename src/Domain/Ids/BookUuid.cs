using System.Globalization;

namespace Kobo.Sync.Domain.Ids;

/// <summary>
/// The UUID a Kobo device knows a book by, derived from its number and back. The layout is an
/// RFC 9562 version 8 UUID: the fixed prefix <c>6b6f626f-5379-8e63-8</c> ("koboSync" in ASCII, with
/// the version nibble 8 and the variant bits 10), then the book number in the last 15 hex digits
/// (60 bits: every number of up to 18 digits fits). Book 56717 is <c>6b6f626f-5379-8e63-8000-00000000dd8d</c>.
/// A UUID not of this form (a store book's, a typo) maps to no book.
/// </summary>
public static class BookUuid
{
    /// <summary>The fixed first 17 hex digits, as written in the canonical form.</summary>
    public const string Prefix = "6b6f626f-5379-8e63-8";

    private const int CanonicalLength = 36;

    /// <summary>The book's UUID.</summary>
    public static Guid From(BookNo book) => Guid.ParseExact(Format(book), "D");

    /// <summary>The book's UUID in canonical lower-case form, as devices send it back.</summary>
    public static string Format(BookNo book)
    {
        var hex = book.Value.ToString("x15", CultureInfo.InvariantCulture);
        return string.Concat(Prefix, hex.AsSpan(0, 3), "-", hex.AsSpan(3));
    }

    /// <summary>The book of a UUID in canonical form (either case); false for any other text or UUID.</summary>
    public static bool TryParse(string? text, out BookNo book)
    {
        book = default;
        return text is { Length: CanonicalLength }
            && Guid.TryParseExact(text, "D", out var uuid)
            && TryParse(uuid, out book);
    }

    /// <summary>The book of a UUID; false when the UUID is not one <see cref="From"/> makes.</summary>
    public static bool TryParse(Guid uuid, out BookNo book)
    {
        book = default;
        var text = uuid.ToString("D");
        if (!text.StartsWith(Prefix, StringComparison.Ordinal))
        {
            return false;
        }

        var hex = string.Concat(text.AsSpan(Prefix.Length, 3), text.AsSpan(Prefix.Length + 4));
        if (!long.TryParse(hex, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var value))
        {
            return false;
        }

        // One spelling per book: the number must be one BookNo accepts (1 to 18 digits).
        return BookNo.TryParse(value.ToString(CultureInfo.InvariantCulture), out book);
    }
}
