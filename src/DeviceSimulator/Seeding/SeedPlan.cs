using Kobo.Sync.DeviceSimulator.Determinism;
using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// What a seed writes, decided before any row is written: the highlights of every user (the long
/// tail, deterministic for the seed, its bands drawn so that they add up to the published total) and
/// the number of books each owns (10.7 on average, the published 734.22 M ownerships for 69.38 M users
/// being 10.58). Each user's rows come from
/// a generator seeded by (run seed, user number) alone, so users can be written in any order, by any
/// number of writers, and the data set is the same.
/// </summary>
public sealed class SeedPlan
{
    /// <summary>
    /// The version of the rows a plan makes from its parameters: a seed resumes only rows of the same
    /// shape. 2: bands drawn to the published total, and books owned without highlights.
    /// </summary>
    public const int ShapeVersion = 2;

    /// <summary>The most books a user owns besides those holding highlights (uniform from 0, mean 9.5).</summary>
    public const int MaxBooksWithoutHighlights = 19;

    private SeedPlan(SeedScale scale, int[] highlights)
    {
        Scale = scale;
        HighlightsPerUser = highlights;
        for (var i = 0; i < highlights.Length; i++)
        {
            TotalHighlights += highlights[i];
            TotalOwnerships += OwnedBooks(i + 1, highlights[i]);
        }
    }

    public SeedScale Scale { get; }

    /// <summary>Index i is user number i + 1.</summary>
    public IReadOnlyList<int> HighlightsPerUser { get; }

    public long TotalHighlights { get; }

    public long TotalOwnerships { get; }

    public long TotalRows => Scale.Users + Scale.Books + TotalOwnerships + TotalHighlights;

    public static SeedPlan Create(SeedScale scale) =>
        new(
            scale,
            LongTailDistribution.Plan(scale.Users, scale.Seed, scale.HeaviestUserHighlights, LongTailDistribution.PublishedBandExponent));

    /// <summary>
    /// Books holding a user's highlights: about the square root of their count, as a reader's
    /// highlights gather in a few books; at least one (a user without highlights still owns a book).
    /// </summary>
    public int BooksWithHighlights(int highlights) => Math.Min(Math.Max(1, (int)Math.Ceiling(Math.Sqrt(highlights))), Scale.Books);

    /// <summary>
    /// Books a user owns: those holding highlights, then 0 to <see cref="MaxBooksWithoutHighlights"/>
    /// more (decided by the seed and the user alone), so the ownership table has the published size
    /// relative to the users, though the reads never look at books without highlights.
    /// </summary>
    public int OwnedBooks(long userNo, int highlights) =>
        Math.Min(
            BooksWithHighlights(highlights) + (int)(StableHash.Of(Scale.Seed, userNo, 0x6f776e6564) % (MaxBooksWithoutHighlights + 1)),
            Scale.Books);

    /// <summary>The generator of one user's rows: the same numbers for the same (seed, user) on every run.</summary>
    public Random UserRandom(long userNo) => new(StableHash.SeedOf(Scale.Seed, userNo));
}
