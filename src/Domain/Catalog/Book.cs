namespace Kobo.Sync.Domain.Catalog;

/// <summary>A catalogue e-book (the benchmark used Project Gutenberg). Document id <c>ebooks/{bookNo}</c>.</summary>
public sealed class Book
{
    public required string Id { get; init; }

    public required string Title { get; set; }

    public required string Author { get; set; }

    /// <summary>ISO 639-1 language code.</summary>
    public string Language { get; set; } = "en";
}
