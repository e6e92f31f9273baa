namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// A passage a reader marked in a book, with an optional note. Document id from
/// <see cref="Ids.HighlightId"/>: <c>highlights/users{userNo}-ebooks/{bookNo}/{key}</c>.
/// </summary>
public sealed class Highlight
{
    public required string Id { get; init; }

    /// <summary>Owner's document id, <c>users/{userNo}</c>; the index on highlights-by-user selects on it.</summary>
    public required string User { get; init; }

    /// <summary>Book's document id, <c>ebooks/{bookNo}</c>.</summary>
    public required string Book { get; init; }

    public required string Text { get; set; }

    /// <summary>Character offset of the passage in the book.</summary>
    public required int Start { get; set; }

    /// <summary>Length of the passage in characters.</summary>
    public required int Length { get; set; }

    public required string Color { get; set; }

    public string? Note { get; set; }

    public required DateTimeOffset CreatedAt { get; init; }

    public required DateTimeOffset ModifiedAt { get; set; }
}
