using Kobo.Sync.Domain.Seeding;

namespace Kobo.Sync.Domain.Tests.Seeding;

public sealed class LongTailDistributionTests
{
    [Fact]
    public void TheSameSeedGivesTheSamePlan()
    {
        Assert.Equal(LongTailDistribution.Plan(5_000, 7, 6_000), LongTailDistribution.Plan(5_000, 7, 6_000));
        Assert.NotEqual(LongTailDistribution.Plan(5_000, 7, 6_000), LongTailDistribution.Plan(5_000, 8, 6_000));
    }

    [Fact]
    public void ASmallDataSetStillHasOneHeavyUser()
    {
        var plan = LongTailDistribution.Plan(3_000, 1, 5_000);

        Assert.Equal(3_000, plan.Length);
        Assert.Equal(5_000, plan.Max());
        Assert.Single(plan, count => count == 5_000);
    }

    [Fact]
    public void AtScaleEachBandHoldsItsPublishedShareOfUsers()
    {
        const int users = 2_000_000;
        var plan = LongTailDistribution.Plan(users, 3, 203_550);
        Assert.Single(plan, count => count == 203_550);

        foreach (var bucket in LongTailDistribution.Published.Skip(1))
        {
            var expected = (double)bucket.Users / LongTailDistribution.PublishedUserCount * users;
            var actual = plan.Count(bucket.Contains);

            Assert.InRange(actual, Math.Floor(expected * 0.99), Math.Ceiling(expected * 1.01) + 1);
        }

        var withoutHighlights = plan.Count(count => count == 0);
        var publishedWithout = LongTailDistribution.PublishedUserCount - LongTailDistribution.Published.Sum(b => b.Users);
        Assert.InRange(withoutHighlights, publishedWithout * users / LongTailDistribution.PublishedUserCount * 0.99, publishedWithout * users / LongTailDistribution.PublishedUserCount * 1.01);
    }

    [Fact]
    public void AverageHighlightsPerUserMatchesTheProductionFigureOfAboutTen()
    {
        // Production averages about 10 highlights per user with p99 under 250.
        var plan = LongTailDistribution.Plan(1_000_000, 5, 20_000);
        var sorted = plan.Order().ToArray();

        Assert.InRange(plan.Average(count => (double)count), 3, 15);
        Assert.True(sorted[(int)(sorted.Length * 0.99)] < 250);
    }

    [Fact]
    public void HeavyUsersAreNotAllAtTheLowestNumbers()
    {
        var plan = LongTailDistribution.Plan(10_000, 11, 5_000);

        Assert.NotEqual(5_000, plan[0]);
    }

    [Fact]
    public void ThePublishedBandExponentAddsTheBandsUpToThePublishedTotal()
    {
        var calibrated = LongTailDistribution.ExpectedPublishedTotal(LongTailDistribution.PublishedBandExponent);
        var logUniform = LongTailDistribution.ExpectedPublishedTotal(LongTailDistribution.LogUniform);

        Assert.InRange(calibrated, LongTailDistribution.PublishedHighlightCount * 0.99, LongTailDistribution.PublishedHighlightCount * 1.01);
        // Why the exponent: log-uniform draws overshoot the published total by a third.
        Assert.True(logUniform > LongTailDistribution.PublishedHighlightCount * 1.3, $"log-uniform total {logUniform:N0}");
    }

    [Fact]
    public void APlanWithThePublishedExponentHasThePublishedHighlightsPerUser()
    {
        const int users = 1_000_000;
        var plan = LongTailDistribution.Plan(users, 17, 2_934, LongTailDistribution.PublishedBandExponent);

        var perUser = plan.Sum(c => (long)c) / (double)users;
        var published = (double)LongTailDistribution.PublishedHighlightCount / LongTailDistribution.PublishedUserCount;
        Assert.InRange(perUser, published * 0.85, published * 1.15);
    }
}
