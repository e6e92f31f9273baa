using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Queries;

/// <summary>
/// The highlight ids strictly between <see cref="After"/> and <see cref="Before"/> in ordinal
/// (byte) order: a key range scan. A prefix becomes a range by keeping the prefix as the lower
/// bound (every id that starts with it sorts after it) and raising its last character by one for
/// the upper bound; a page cursor moves the lower bound to the last id already returned.
/// </summary>
public readonly record struct HighlightRange(string After, string Before)
{
    public static HighlightRange ForUser(UserNo user) => OfPrefix(HighlightId.UserPrefix(user));

    public static HighlightRange ForBook(UserNo user, BookNo book) => OfPrefix(HighlightId.BookPrefix(user, book));

    public static HighlightRange OfPrefix(string prefix)
    {
        ArgumentException.ThrowIfNullOrEmpty(prefix);
        // Prefixes end in '-' or '/', so the raised character stays printable ASCII.
        var upper = string.Create(prefix.Length, prefix, static (span, p) =>
        {
            p.AsSpan().CopyTo(span);
            span[^1]++;
        });
        return new HighlightRange(prefix, upper);
    }

    /// <summary>The same range, starting after <paramref name="lastId"/>.</summary>
    public HighlightRange ResumeAfter(string lastId) => this with { After = lastId };

    public bool Contains(string id) =>
        string.CompareOrdinal(id, After) > 0 && string.CompareOrdinal(id, Before) < 0;
}
