namespace Kobo.Sync.Domain.Seeding;

/// <summary>
/// Highlights per user as measured on the production data set the product is modelled on
/// (69.38 M users, 497.03 M highlights): most users hold one highlight, a few hold hundreds
/// of thousands. Seeding at any scale keeps these shares so that reads see the same skew.
/// </summary>
public static class LongTailDistribution
{
    public const long PublishedUserCount = 69_380_000;

    /// <summary>The published total of highlights, 497.03 M.</summary>
    public const long PublishedHighlightCount = 497_030_000;

    /// <summary>Counts inside a band drawn log-uniformly (density proportional to 1/x).</summary>
    public const double LogUniform = 1.0;

    /// <summary>
    /// The exponent of the power law (density proportional to x^-a) inside each band that makes the
    /// bands add up to the published total: 497.2 M at full scale against 497.03 M. Log-uniform
    /// draws (a = 1) put too many users near the top of each decade-wide band and add up to 674 M,
    /// 1.36 times the published total; the published bands do not say more than their edges.
    /// </summary>
    public const double PublishedBandExponent = 1.9;

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
    /// published bands are decades wide (see <see cref="HighlightBucket"/> for its edges), or follow a
    /// power law of <paramref name="bandExponent"/> (<see cref="PublishedBandExponent"/> matches the
    /// published total).
    /// </summary>
    public static int[] Plan(int userCount, int seed, int heaviestUserHighlights, double bandExponent = LogUniform)
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
                counts[next++] = Draw(random, bucket.MinHighlights, bucket.MaxHighlights, bandExponent);
            }
        }

        // The rest hold no highlights; shuffle so the heavy users are not all at the lowest numbers.
        random.Shuffle(counts);
        return counts;
    }

    /// <summary>A count in [min, max) from the power law of <paramref name="exponent"/> (1: log-uniform), by its inverse CDF.</summary>
    private static int Draw(Random random, int min, int max, double exponent)
    {
        if (min == max)
        {
            return min;
        }

        var u = random.NextDouble();
        var value = Math.Abs(exponent - 1) < 1e-9
            ? Math.Exp(Math.Log(min) + (u * (Math.Log(max) - Math.Log(min))))
            : Math.Pow(Math.Pow(min, 1 - exponent) + (u * (Math.Pow(max, 1 - exponent) - Math.Pow(min, 1 - exponent))), 1 / (1 - exponent));
        return Math.Clamp((int)value, min, max - 1);
    }

    /// <summary>
    /// The expected total of highlights at full scale for draws of <paramref name="exponent"/> (for the tests of the calibration).
    /// </summary>
    public static double ExpectedPublishedTotal(double exponent, int samplesPerBand = 20_000)
    {
        double total = Published[0].MinHighlights;
        foreach (var bucket in Published.Skip(1))
        {
            if (bucket.MinHighlights == bucket.MaxHighlights)
            {
                total += (double)bucket.MinHighlights * bucket.Users;
                continue;
            }

            // The mean of the floored draw, by the midpoint rule over the inverse CDF.
            double sum = 0;
            var random = new MidpointSource(samplesPerBand);
            for (var i = 0; i < samplesPerBand; i++)
            {
                sum += Draw(random, bucket.MinHighlights, bucket.MaxHighlights, exponent);
            }

            total += sum / samplesPerBand * bucket.Users;
        }

        return total;
    }

    /// <summary>Evenly spaced "random" numbers (i + 0.5) / n, for an expectation without sampling noise.</summary>
    private sealed class MidpointSource(int count) : Random
    {
        private int _next;

        public override double NextDouble() => (_next++ + 0.5) / count;
    }
}
