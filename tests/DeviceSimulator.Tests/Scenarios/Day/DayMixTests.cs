using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios.Day;
using Kobo.Sync.Domain.ChangeFeed;

namespace Kobo.Sync.DeviceSimulator.Tests.Scenarios.Day;

[Trait("Category", "Fast")]
public sealed class DayMixTests
{
    [Fact]
    public void TheDevicesOfARunFallIntoEachKindAtTheProfilesShare()
    {
        var mix = new DayMix();
        var fleet = new DeviceFleet(1_000_000, seed: 11, Shard.Whole);
        var counts = new int[4];
        const int devices = 200_000;
        for (var i = 0; i < devices; i++)
        {
            counts[(int)mix.KindOf(fleet.InOrder(i))]++;
        }

        // Within four standard deviations of a binomial draw.
        double[] shares = [mix.Scheduled, mix.Active, mix.FirstSync, mix.Drawer];
        for (var k = 0; k < 4; k++)
        {
            var p = shares[k] / 100;
            var sigma = Math.Sqrt(devices * p * (1 - p));
            Assert.InRange(counts[k], (devices * p) - (4 * sigma), (devices * p) + (4 * sigma));
        }
    }

    [Fact]
    public void ADevicesKindFollowsFromItsHashAloneAndAZeroShareIsNeverDrawn()
    {
        var mix = new DayMix { Scheduled = 0, Active = 50, FirstSync = 50, Drawer = 0 };
        var fleet = new DeviceFleet(100_000, seed: 3, Shard.Whole);
        var kinds = Enumerable.Range(0, 10_000).Select(i => mix.KindOf(fleet.InOrder(i))).ToList();

        Assert.DoesNotContain(DaySyncKind.Scheduled, kinds);
        Assert.DoesNotContain(DaySyncKind.Drawer, kinds);
        Assert.Equal(kinds, Enumerable.Range(0, 10_000).Select(i => mix.KindOf(new DeviceFleet(100_000, seed: 3, Shard.Whole).InOrder(i))));
    }

    [Theory]
    [InlineData(80, 15, 4.5, 1)]
    [InlineData(-1, 96, 4.5, 0.5)]
    public void AMixThatDoesNotAddUpToAHundredIsRefused(double scheduled, double active, double firstSync, double drawer) =>
        Assert.Single(new DayMix { Scheduled = scheduled, Active = active, FirstSync = firstSync, Drawer = drawer }.Validate());

    [Fact]
    public void ADevicesKeptTokenIsTheServicesOwnPositionAfterTheSeedAndReadsBack()
    {
        var tokens = new DayTokens(new string('k', 32));

        var caughtUp = tokens.Resolve(42, tokens.Issue(42, DayTokens.CaughtUp(42)));
        var drawer = tokens.Resolve(42, tokens.Issue(42, DayTokens.BackFromDrawer));

        Assert.Equal(SyncPosition.Start.WithHighlightsThrough(new(42), 0).WithEntitlementsThrough(0).WithReadingStatesThrough(0).WithCollectionsThrough(0), caughtUp);
        Assert.Equal((0, string.Empty), (drawer.HighlightSeq, drawer.HighlightId)); // every highlight again
        Assert.Equal(long.MaxValue, drawer.EntitlementBook); // the library is current
        Assert.ThrowsAny<Exception>(() => tokens.Resolve(43, tokens.Issue(42, DayTokens.CaughtUp(42))));
    }
}
