using System.Globalization;

namespace Kobo.Sync.DevServer.Demo;

/// <summary>
/// What the demo content origin serves: for each book of the demo catalogue (<see cref="DemoRows.GenerateBooks"/>,
/// the books the demo seeder loads), its EPUB made on request (a few kilobytes, no store read) and one
/// fixed cover. Nothing else: any other number is not found, and no user's data is involved.
/// </summary>
public static class DemoContentFiles
{
    private static readonly Lazy<DemoBook[]> Books = new(() => [.. DemoRows.GenerateBooks()]);

    private static readonly Lazy<byte[]> CoverBytes = new(LoadCover);

    public const string CoverMediaType = "image/jpeg";

    /// <summary>The fixed cover every demo book shows (a small greyscale JPEG).</summary>
    public static byte[] Cover => CoverBytes.Value;

    /// <summary>The EPUB of the demo book named by <paramref name="number"/> (its number in digits); null for anything else.</summary>
    public static byte[]? Epub(string number) =>
        Find(number) is { } book ? EpubOf(book) : null;

    /// <summary>Whether <paramref name="number"/> (digits only) names a demo book.</summary>
    public static bool IsDemoBook(string number) => Find(number) is not null;

    /// <summary>The EPUB of a demo book; its length is the size the demo seeder states for it.</summary>
    public static byte[] EpubOf(DemoBook book) => DemoEpub.Build(book.BookNo, book.Title, book.Author, book.Language);

    /// <summary>One spelling per book: digits without a leading zero, as the download URLs write them.</summary>
    private static DemoBook? Find(string number) =>
        number.Length is > 0 and <= 9
        && number[0] != '0'
        && int.TryParse(number, NumberStyles.None, CultureInfo.InvariantCulture, out var n)
        && n >= 1 && n <= Books.Value.Length
            ? Books.Value[n - 1]
            : null;

    private static byte[] LoadCover()
    {
        using var stream = typeof(DemoContentFiles).Assembly.GetManifestResourceStream("Kobo.Sync.DemoContent.cover.jpg")
            ?? throw new InvalidOperationException("The demo cover is not embedded in the assembly.");
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}
