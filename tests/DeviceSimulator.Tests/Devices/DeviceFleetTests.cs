using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Tests.Devices;

[Trait("Category", "Fast")]
public sealed class DeviceFleetTests
{
    [Fact]
    public void ShardsSplitTheDevicesIntoDisjointRangesThatCoverThemAll()
    {
        const long devices = 10_000_003;
        var covered = 0L;
        var next = 0L;
        for (var i = 1; i <= 7; i++)
        {
            Assert.True(Shard.TryParse($"{i}/7", out var shard));
            var fleet = new DeviceFleet(devices, seed: 1, shard);
            Assert.Equal(next, fleet.First);
            next = fleet.First + fleet.Count;
            covered += fleet.Count;
            for (var s = 0; s < 1_000; s++)
            {
                Assert.InRange(fleet.ForSync(s, scenarioSalt: 3).Number, fleet.First, fleet.First + fleet.Count - 1);
            }
        }

        Assert.Equal(devices, covered);
    }

    [Fact]
    public void ADeviceIsTheSameForTheSameNumberAndSeedWithoutBeingStored()
    {
        var a = SimulatedDevice.Of(9_876_543, seed: 42);
        var b = SimulatedDevice.Of(9_876_543, seed: 42);
        var other = SimulatedDevice.Of(9_876_543, seed: 43);

        Assert.Equal(a, b);
        Assert.Equal(a.SyncInterval, b.SyncInterval);
        Assert.Equal("sim-9876543", a.DeviceId);
        Assert.InRange(a.SyncInterval, TimeSpan.FromMinutes(15), TimeSpan.FromMinutes(120));
        Assert.InRange(a.SyncPhase, TimeSpan.Zero, a.SyncInterval);
        Assert.NotEqual(a.Hash, other.Hash);
    }

    [Theory]
    [InlineData("0/2")]
    [InlineData("3/2")]
    [InlineData("1")]
    [InlineData("a/b")]
    [InlineData("1/0")]
    public void AShardOutsideOneToNIsRefused(string text)
    {
        Assert.False(Shard.TryParse(text, out _));
    }
}
