using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios;

namespace Kobo.Sync.DeviceSimulator.Tests.Scenarios;

[Trait("Category", "Fast")]
public sealed class UserWalkTests
{
    [Theory]
    [InlineData(1_000)]
    [InlineData(997)]
    [InlineData(1_024)]
    [InlineData(3)]
    public void AShuffledWalkReadsEveryUserOnceInAsManyReads(long users)
    {
        var walk = new UserWalk(users, UserOrder.Shuffled, seed: 7);

        var read = Enumerable.Range(0, (int)users).Select(i => walk.UserAt(i)).ToList();

        Assert.Equal(Enumerable.Range(1, (int)users).Select(u => (long)u), read.Order());
    }

    [Fact]
    public void AShuffledWalkPutsConsecutiveReadsFarApartInTheTable()
    {
        var walk = new UserWalk(200_000, UserOrder.Shuffled, seed: 7);

        // Users stored side by side share a page (about 80 users per 8 kB page): consecutive reads must not.
        var near = Enumerable.Range(0, 10_000).Count(i => Math.Abs(walk.UserAt(i + 1) - walk.UserAt(i)) < 1_000);

        Assert.Equal(0, near);
    }

    [Fact]
    public void AnInOrderWalkFromAnOffsetContinuesWhereAnEarlierRunStopped()
    {
        var fleet = new DeviceFleet(1_000_000, 1, Shard.Whole);
        var sampling = new ReadSampling(fleet, [], users: 5_000, UserOrder.InOrder, userOffset: 1_200);

        Assert.Equal(1_201, sampling.UserOf(fleet.InOrder(0)));
        Assert.Equal(1_202, sampling.UserOf(fleet.InOrder(1)));
    }
}
