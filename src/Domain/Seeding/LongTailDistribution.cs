namespace Kobo.Sync.Domain.Seeding;

/// <summary>
/// Highlights per user as measured on the production data set the product is modelled on
/// (69.38 M users, 497.03 M highlights): most users hold one highlight, a few hold hundreds
/// of thousands. Seeding at any scale keeps these shares so that reads see the same skew.
/// </summary>
public static class LongTailDistribution
{
    public const long PublishedUserCount = 69_380_000;

    /// <summary>The published bands, heaviest first; users not listed hold no highlights.</summary>
    public static IReadOnlyList<HighlightBucket> Published { get; } =
    [
        new(203_550, 203_550, 1),
        new(100_000, 200_000, 428),
        new(10_000, 100_000, 10_622),
        new(1_000, 10_000, 20_340),
        new(100, 1_000, 67_249),
        new(10, 100, 59_827),
        new(2, 10, 10_158_123),
        new(1, 1, 43_425_405),
    ];

    /// <summary>
    /// Highlights for each of <paramref name="userCount"/> users (index i is user number i + 1),
    /// deterministic for a seed. Every band gets its share of users, rounded; the heaviest band always
    /// gets one user, holding <paramref name="heaviestUserHighlights"/>, so that even a small data set
    /// has one user whose history takes many pages. Counts inside a band are log-uniform, as the
    /// published bands are decades wide (see <see cref="HighlightBucket"/> for its edges).
    /// </summary>
    public static int[] Plan(int userCount, int seed, int heaviestUserHighlights)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(userCount, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(heaviestUserHighlights, 1);

        var random = new Random(seed);
        var counts = new int[userCount];
        var next = 0;
        counts[next++] = heaviestUserHighlights;

        foreach (var bucket in Published.Skip(1))
        {
            var share = (double)bucket.Users / PublishedUserCount;
            var users = (int)Math.Min(Math.Round(share * userCount), userCount - next);
            for (var i = 0; i < users; i++)
            {
                counts[next++] = DrawLogUniform(random, bucket.MinHighlights, bucket.MaxHighlights);
            }
        }

        // The rest hold no highlights; shuffle so the heavy users are not all at the lowest numbers.
        random.Shuffle(counts);
        return counts;
    }

    private static int DrawLogUniform(Random random, int min, int max)
    {
        if (min == max)
        {
            return min;
        }

        var value = Math.Exp(Math.Log(min) + (random.NextDouble() * (Math.Log(max) - Math.Log(min))));
        return Math.Clamp((int)value, min, max - 1);
    }
}
