using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// One user's rows, generated from the plan's per-user random source: the user, the books holding
/// their highlights (with how many each) and then, on demand, the highlights themselves. The books
/// come first from the source, so the heaviest-users list can name them without generating highlights.
/// </summary>
public sealed class SeedUser
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
    private static readonly string[] Words =
    [
        "the", "light", "fell", "across", "a", "quiet", "room", "where", "nobody", "had", "spoken",
        "for", "years", "and", "still", "it", "seemed", "to", "remember", "every", "word",
    ];

    private readonly Random _random;

    public SeedUser(SeedPlan plan, long userNo)
    {
        _random = plan.UserRandom(userNo);
        UserNo = userNo;
        CreatedAt = Epoch.AddMinutes(_random.Next(0, 60 * 24 * 365 * 8));
        Name = $"{FirstNames[_random.Next(FirstNames.Length)]} {LastNames[_random.Next(LastNames.Length)]}";
        Country = Countries[_random.Next(Countries.Length)];
        Highlights = plan.HighlightsPerUser[(int)userNo - 1];

        var bookCount = plan.OwnedBooks(userNo, Highlights);
        var highlightBooks = plan.BooksWithHighlights(Highlights);
        var books = new List<long>(bookCount);
        while (books.Count < bookCount)
        {
            var book = _random.NextInt64(1, plan.Scale.Books + 1);
            if (!books.Contains(book))
            {
                books.Add(book);
            }
        }

        Books = books;
        BooksWithHighlights = books.GetRange(0, highlightBooks);
        var perBook = new int[bookCount];
        for (var i = 0; i < Highlights; i++)
        {
            perBook[i < highlightBooks ? i : _random.Next(highlightBooks)]++;
        }

        HighlightsPerBook = perBook;
    }

    public long UserNo { get; }

    public string Name { get; }

    public string? Country { get; }

    public DateTime CreatedAt { get; }

    public int Highlights { get; }

    /// <summary>The books this user owns; each holds <see cref="HighlightsPerBook"/> at the same index.</summary>
    public IReadOnlyList<long> Books { get; }

    public IReadOnlyList<int> HighlightsPerBook { get; }

    /// <summary>The first books of <see cref="Books"/>: those holding the user's highlights (the others hold none).</summary>
    public IReadOnlyList<long> BooksWithHighlights { get; }

    /// <summary>When book i was acquired; call in book order, once per book, before its highlights.</summary>
    public DateTime NextAcquiredAt() => CreatedAt.AddMinutes(_random.Next(0, 60 * 24 * 365));

    /// <summary>The next highlight of book <paramref name="book"/>, number <paramref name="sequence"/> in it.</summary>
    public SeedHighlight NextHighlight(long book, int sequence, DateTime acquiredAt)
    {
        var id = new HighlightId(new UserNo(UserNo), new BookNo(book), HighlightKey.Parse($"h{sequence:D6}"));
        var words = new string[_random.Next(4, 14)];
        for (var i = 0; i < words.Length; i++)
        {
            words[i] = Words[_random.Next(Words.Length)];
        }

        var text = string.Join(' ', words);
        var createdAt = acquiredAt.AddMinutes(_random.Next(1, 60 * 24 * 90));
        var modifiedAt = _random.Next(4) == 0 ? createdAt.AddMinutes(_random.Next(1, 60 * 24 * 30)) : createdAt;
        return new SeedHighlight(
            id.ToString(), text, _random.Next(0, 500_000), HighlightColor.All[_random.Next(HighlightColor.All.Count)],
            _random.Next(5) == 0 ? "Worth rereading." : null, createdAt, modifiedAt);
    }
}

public readonly record struct SeedHighlight(
    string Id, string Text, int Start, string Color, string? Note, DateTime CreatedAt, DateTime ModifiedAt);
