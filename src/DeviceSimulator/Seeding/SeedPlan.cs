using Kobo.Sync.DeviceSimulator.Determinism;
using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// What a seed writes, decided before any row is written: the highlights of every user (the long
/// tail, deterministic for the seed) and the number of books each owns. Each user's rows come from
/// a generator seeded by (run seed, user number) alone, so users can be written in any order, by any
/// number of writers, and the data set is the same.
/// </summary>
public sealed class SeedPlan
{
    private SeedPlan(SeedScale scale, int[] highlights)
    {
        Scale = scale;
        HighlightsPerUser = highlights;
        foreach (var count in highlights)
        {
            TotalHighlights += count;
            TotalOwnerships += OwnedBooks(count);
        }
    }

    public SeedScale Scale { get; }

    /// <summary>Index i is user number i + 1.</summary>
    public IReadOnlyList<int> HighlightsPerUser { get; }

    public long TotalHighlights { get; }

    public long TotalOwnerships { get; }

    public long TotalRows => Scale.Users + Scale.Books + TotalOwnerships + TotalHighlights;

    public static SeedPlan Create(SeedScale scale) =>
        new(scale, LongTailDistribution.Plan(scale.Users, scale.Seed, scale.HeaviestUserHighlights));

    /// <summary>
    /// Books a user owns: those holding the highlights (about the square root of their count, as a
    /// reader's highlights gather in a few books), at least one. Owned books without highlights are
    /// left out: the reads never look at them.
    /// </summary>
    public int OwnedBooks(int highlights) => Math.Min(Math.Max(1, (int)Math.Ceiling(Math.Sqrt(highlights))), Scale.Books);

    /// <summary>The generator of one user's rows: the same numbers for the same (seed, user) on every run.</summary>
    public Random UserRandom(long userNo) => new(StableHash.SeedOf(Scale.Seed, userNo));
}
