using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DevServer.Demo;

public sealed record DemoUser(long UserNo, string Name, string? Country, DateTime CreatedAt);

public sealed record DemoBook(long BookNo, string Title, string Author, string Language);

public sealed record DemoOwnership(long UserNo, long BookNo, DateTime AcquiredAt);

public sealed record DemoHighlight(
    string Id, long UserNo, long BookNo, string Text, int Start, int Length,
    string Color, string? Note, DateTime CreatedAt, DateTime ModifiedAt);

/// <summary>Generates the rows of <see cref="DemoData"/>; the same rows on every run.</summary>
public sealed class DemoRows
{
    private static readonly DateTime Epoch = new(2012, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private static readonly string[] FirstNames =
    [
        "Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro",
        "Ines", "Jonas", "Kira", "Luca", "Maya", "Noor", "Oskar", "Priya",
    ];
    private static readonly string[] LastNames =
    [
        "Abbott", "Bauer", "Costa", "Dubois", "Eriksen", "Fujita", "Garcia",
        "Hughes", "Ivanova", "Jensen", "Kowalski", "Lambert", "Moreau", "Nakamura",
    ];
    private static readonly string?[] Countries = ["CA", "US", "GB", "FR", "DE", "JP", "NL", "AU", "IT", null];
    private static readonly string[] Adjectives =
    [
        "Silent", "Golden", "Hidden", "Last", "Northern", "Secret", "Winter", "Broken", "Distant", "Little",
    ];
    private static readonly string[] Nouns =
    [
        "Garden", "River", "Letters", "Voyage", "House", "Island", "Kingdom", "Lantern", "Orchard", "Station",
    ];
    private static readonly string[] Languages = ["en", "en", "en", "fr", "de", "es", "nl", "it"];
    private static readonly string[] Words =
    [
        "the", "light", "fell", "across", "a", "quiet", "room", "where", "nobody", "had", "spoken",
        "for", "years", "and", "still", "it", "seemed", "to", "remember", "every", "word",
    ];

    public List<DemoUser> Users { get; } = new(DemoData.UserCount);

    public List<DemoBook> Books { get; } = new(DemoData.BookCount);

    public List<DemoOwnership> Ownerships { get; } = [];

    public List<DemoHighlight> Highlights { get; } = new(DemoData.TotalHighlights);

    public static DemoRows Generate()
    {
        var rows = new DemoRows();
        var random = new Random(DemoData.Seed + 1);
        AddBooks(random, rows.Books);

        var counts = DemoData.HighlightsPerUser;
        for (var u = 1; u <= DemoData.UserCount; u++)
        {
            var created = Epoch.AddMinutes(random.Next(0, 60 * 24 * 365 * 8));
            rows.Users.Add(new DemoUser(u, $"{Pick(random, FirstNames)} {Pick(random, LastNames)}", Pick(random, Countries), created));
            rows.AddHighlights(random, u, counts[u - 1], created);
        }

        rows.Highlights.Sort((x, y) => string.CompareOrdinal(x.Id, y.Id));
        return rows;
    }

    /// <summary>
    /// The demo catalogue alone, the same books <see cref="Generate"/> makes (the demo content origin serves their files).
    /// </summary>
    public static List<DemoBook> GenerateBooks()
    {
        var books = new List<DemoBook>(DemoData.BookCount);
        AddBooks(new Random(DemoData.Seed + 1), books);
        return books;
    }

    /// <summary>The catalogue: drawn first from the seeded generator, so it does not depend on what follows.</summary>
    private static void AddBooks(Random random, List<DemoBook> books)
    {
        for (var b = 1; b <= DemoData.BookCount; b++)
        {
            books.Add(new DemoBook(
                b,
                $"The {Pick(random, Adjectives)} {Pick(random, Nouns)}",
                $"{Pick(random, FirstNames)} {Pick(random, LastNames)}",
                Pick(random, Languages)));
        }
    }

    private void AddHighlights(Random random, long user, int count, DateTime userCreated)
    {
        if (count == 0)
        {
            return;
        }

        // About sqrt(n) books: a heavy reader's 6,000 highlights spread over 78 books.
        var bookCount = Math.Clamp((int)Math.Ceiling(Math.Sqrt(count)), 1, count);
        var books = new List<long>(bookCount);
        if (DemoData.LookAlikeUsers.Contains(user))
        {
            books.AddRange(DemoData.LookAlikeBooks);
        }

        while (books.Count < bookCount)
        {
            var book = random.NextInt64(1, DemoData.BookCount + 1);
            if (!books.Contains(book))
            {
                books.Add(book);
            }
        }

        var perBook = new int[books.Count];
        for (var i = 0; i < count; i++)
        {
            perBook[i < books.Count ? i : random.Next(books.Count)]++;
        }

        for (var i = 0; i < books.Count; i++)
        {
            var acquired = userCreated.AddMinutes(random.Next(0, 60 * 24 * 365));
            Ownerships.Add(new DemoOwnership(user, books[i], acquired));
            for (var seq = 1; seq <= perBook[i]; seq++)
            {
                var id = new HighlightId(new UserNo(user), new BookNo(books[i]), HighlightKey.Parse($"h{seq:D6}"));
                var text = Sentence(random);
                var createdAt = acquired.AddMinutes(random.Next(1, 60 * 24 * 90));
                var modifiedAt = random.Next(4) == 0 ? createdAt.AddMinutes(random.Next(1, 60 * 24 * 30)) : createdAt;
                Highlights.Add(new DemoHighlight(
                    id.ToString(), user, books[i], text, random.Next(0, 500_000), text.Length,
                    Pick(random, HighlightColor.All), random.Next(5) == 0 ? "Worth rereading." : null, createdAt, modifiedAt));
            }
        }
    }

    private static string Sentence(Random random)
    {
        var words = new string[random.Next(4, 14)];
        for (var i = 0; i < words.Length; i++)
        {
            words[i] = Pick(random, Words);
        }

        return string.Join(' ', words);
    }

    private static T Pick<T>(Random random, IReadOnlyList<T> items) => items[random.Next(items.Count)];
}
