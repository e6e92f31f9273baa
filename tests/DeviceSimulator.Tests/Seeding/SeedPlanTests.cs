using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.DeviceSimulator.Tests.Seeding;

/// <summary>A seed's plan has the published shape relative to its users: highlights and ownerships per user.</summary>
[Trait("Category", "Fast")]
public sealed class SeedPlanTests
{
    /// <summary>The published data set: 734.22 M ownerships and 497.03 M highlights for 69.38 M users.</summary>
    private const double PublishedOwnershipsPerUser = 734.22 / 69.38;

    [Fact]
    public void UsersOwnThePublishedNumberOfBooksOnAverageAndHighlightsStayInTheirBooks()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(200_000, seed: 3));

        var ownershipsPerUser = plan.TotalOwnerships / (double)plan.Scale.Users;
        var highlightsPerUser = plan.TotalHighlights / (double)plan.Scale.Users;
        var published = (double)LongTailDistribution.PublishedHighlightCount / LongTailDistribution.PublishedUserCount;

        Assert.InRange(ownershipsPerUser, PublishedOwnershipsPerUser * 0.95, PublishedOwnershipsPerUser * 1.05);
        // The heaviest user keeps at least 1,000 highlights at any size, which a small set feels.
        Assert.InRange(highlightsPerUser, published * 0.85, published * 1.2);
        foreach (var userNo in new long[] { 1, 2, 77, 199_999 })
        {
            var user = new SeedUser(plan, userNo);
            Assert.Equal(plan.OwnedBooks(userNo, user.Highlights), user.Books.Count);
            Assert.Equal(user.Books.Take(user.BooksWithHighlights.Count), user.BooksWithHighlights);
            Assert.Equal(user.Highlights, user.HighlightsPerBook.Take(user.BooksWithHighlights.Count).Sum());
        }
    }
}

/// <summary>The seed's progress line goes on saying what it does once the rows are written.</summary>
[Trait("Category", "Fast")]
public sealed class SeedProgressTests
{
    [Fact]
    public void AfterTheLoadTheLineNamesTheKeyBeingBuiltAndForHowLong()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(1_000, seed: 1));
        var progress = new SeedProgress(plan);
        progress.LoadEnded();

        progress.Step("building key users_books_changes, 5 of 7");

        Assert.Contains("(building key users_books_changes, 5 of 7, 00:00:", progress.Line(), StringComparison.Ordinal);
    }
}
