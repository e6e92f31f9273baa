using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// The size of a seeded data set: the published data set (<see cref="LongTailDistribution"/>) shrunk
/// by a factor. Users scale linearly; the heaviest user keeps its share (203,550 highlights at full
/// scale) but holds at least 1,000 so a small set still has a history of many pages; the catalogue
/// keeps at least 1,000 books and never more than the 63,510 of Project Gutenberg.
/// </summary>
public sealed record SeedScale(int Users, int Books, int HeaviestUserHighlights, int Seed)
{
    public const int PublishedBooks = 63_510;
    public const int PublishedHeaviest = 203_550;

    public static SeedScale FromFactor(double factor, int seed)
    {
        if (!(factor > 0) || factor > 1)
        {
            throw new ArgumentOutOfRangeException(nameof(factor), factor, "The scale factor must be above 0 and at most 1.");
        }

        return FromUsers((int)Math.Max(1, Math.Round(LongTailDistribution.PublishedUserCount * factor)), seed);
    }

    public static SeedScale FromUsers(int users, int seed)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(users, 1);
        var factor = (double)users / LongTailDistribution.PublishedUserCount;
        var books = (int)Math.Clamp(Math.Round(PublishedBooks * factor * 20), 1_000, PublishedBooks);
        var heaviest = (int)Math.Clamp(Math.Round(PublishedHeaviest * factor), 1_000, PublishedHeaviest);
        return new SeedScale(users, books, heaviest, seed);
    }
}
