using Kobo.Sync.SyncApi.Infrastructure.Resilience;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

[Trait("Category", "Fast")]
public sealed class RetryAdviceTests
{
    [Fact]
    public void DevicesRefusedTogetherAreToldToComeBackAtTimesSpreadFromTheLeastToTwiceIt()
    {
        var least = TimeSpan.FromSeconds(1);

        var times = Enumerable.Range(0, 2_000).Select(_ => RetryAdvice.Spread(least)).ToArray();

        Assert.All(times, t => Assert.InRange(t, least, least * 2));
        // Spread over the whole range, not bunched: each tenth of it holds some (2,000 draws; a tenth is
        // empty with probability about 10 * 0.9^2000).
        var tenths = times.GroupBy(t => (int)((t - least) / least * 10)).Count();
        Assert.Equal(10, tenths);
    }

    [Theory]
    [InlineData(1, "1")]
    [InlineData(1000, "1")]
    [InlineData(1001, "2")]
    public void RetryAfterCountsWholeSecondsRoundedUp(int milliseconds, string header) =>
        Assert.Equal(header, RetryAdvice.HeaderSeconds(TimeSpan.FromMilliseconds(milliseconds)));
}
