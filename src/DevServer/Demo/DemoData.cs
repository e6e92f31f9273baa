using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.DevServer.Demo;

/// <summary>
/// The demo data set: small, deterministic (fixed seed), with the production long tail of highlights
/// per user (<see cref="LongTailDistribution"/>), one heavy user whose history takes many pages, and
/// the look-alike numbers a prefix scan must keep apart: users 12 and 123 both hold highlights, each
/// in books 5 and 56.
/// </summary>
public static class DemoData
{
    public const int Seed = 20_211;
    public const int UserCount = 3_000;
    public const int BookCount = 2_000;
    public const int HeavyUserHighlights = 6_000;

    /// <summary>Users whose numbers share a prefix; both hold highlights in <see cref="LookAlikeBooks"/>.</summary>
    public static IReadOnlyList<long> LookAlikeUsers { get; } = [12, 123];

    /// <summary>Books whose numbers share a prefix.</summary>
    public static IReadOnlyList<long> LookAlikeBooks { get; } = [5, 56];

    private static readonly Lazy<int[]> Counts = new(PlanCounts);

    /// <summary>The user with the most highlights (<see cref="HeavyUserHighlights"/>, over many books).</summary>
    public static UserNo HeavyUser { get; } = new(Array.IndexOf(Counts.Value, HeavyUserHighlights) + 1);

    /// <summary>Highlights of each user: index i is user i + 1.</summary>
    public static IReadOnlyList<int> HighlightsPerUser => Counts.Value;

    public static int TotalHighlights => Counts.Value.Sum();

    private static int[] PlanCounts()
    {
        var counts = LongTailDistribution.Plan(UserCount, Seed, HeavyUserHighlights);
        var heavy = Array.IndexOf(counts, HeavyUserHighlights);
        for (var i = 0; i < counts.Length; i++)
        {
            // At this scale one drawn user may exceed the heavy one; keep the heavy one the heaviest.
            if (i != heavy && counts[i] >= HeavyUserHighlights)
            {
                counts[i] = HeavyUserHighlights - 1;
            }
        }

        foreach (var user in LookAlikeUsers)
        {
            var index = (int)user - 1;
            if (index != heavy)
            {
                counts[index] = Math.Max(counts[index], 12);
            }
        }

        return counts;
    }
}
