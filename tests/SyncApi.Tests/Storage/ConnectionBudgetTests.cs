using Kobo.Sync.Storage;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage;

/// <summary>The pools' sizes from the server's connection limit and the instance count, on their own.</summary>
[Trait("Category", "Fast")]
public sealed class ConnectionBudgetTests
{
    private static readonly ServerConnectionLimits Embedded = new(100, 3);
    private static readonly ServerConnectionLimits TerraformPrimary = new(200, 3);

    [Fact]
    public void ASingleInstanceOnTheEmbeddedServerTakesTheServerLessTheReservesAndLivePullsTwo()
    {
        var plan = ConnectionBudget.Plan(Embedded, instances: 1, reserved: 10, separateReads: false, listens: true);

        Assert.Equal(new PoolPlan(Budget: 87, Share: 87, Write: 85, Read: 0, Live: 2), plan);
    }

    [Fact]
    public void TheBudgetProfilesSixInstancesSplitThePrimaryAndHalveTheirShareBetweenWritesAndReads()
    {
        var plan = ConnectionBudget.Plan(TerraformPrimary, instances: 6, reserved: 10, separateReads: true, listens: true);

        Assert.Equal(new PoolPlan(Budget: 187, Share: 31, Write: 15, Read: 14, Live: 2), plan);
        Assert.True(ConnectionBudget.Total(6, plan.Held) <= plan.Budget);
    }

    [Theory]
    [InlineData(100, 3, 0, 1, false, false)]
    [InlineData(100, 3, 10, 2, true, true)]
    [InlineData(30, 3, 10, 2, false, true)]
    [InlineData(200, 3, 10, 6, true, true)]
    [InlineData(200, 3, 10, 7, true, false)]
    [InlineData(500, 5, 20, 13, false, true)]
    public void AllInstancesTogetherNeverHoldMoreThanTheServersBudget(int max, int superuser, int reserved, int instances, bool reads, bool listens)
    {
        var plan = ConnectionBudget.Plan(new ServerConnectionLimits(max, superuser), instances, reserved, reads, listens);

        Assert.Equal(max - superuser - reserved, plan.Budget);
        Assert.InRange(ConnectionBudget.Total(instances, plan.Held), plan.Budget - instances + 1, plan.Budget);
        Assert.True(plan.Write >= 1);
        Assert.Equal(reads, plan.Read >= 1);
        Assert.Equal(listens ? 2 : 0, plan.Live);
    }

    [Fact]
    public void TooManyInstancesForTheServerFailTheStartNamingTheSettings()
    {
        var error = Assert.Throws<InvalidOperationException>(
            () => ConnectionBudget.Plan(new ServerConnectionLimits(30, 3), instances: 10, reserved: 10, separateReads: true, listens: true));

        Assert.Contains("Storage:Instances (10)", error.Message, StringComparison.Ordinal);
        Assert.Contains("Storage:ReservedConnections (10)", error.Message, StringComparison.Ordinal);
        Assert.Contains("max_connections", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APoolsMaximumIsItsShareAndItKeepsEveryConnectionUpToIt()
    {
        var pool = Builder("Host=a;Database=d", 15);

        Assert.Equal((15, 15), (pool.MaxPoolSize, pool.MinPoolSize));
    }

    [Fact]
    public void AMaximumTheConnectionStringSetsWinsAndTheFloorStaysWithinTheShare()
    {
        Assert.Equal((40, 15), Sizes(Builder("Host=a;Database=d;Maximum Pool Size=40", 15)));
        Assert.Equal((10, 10), Sizes(Builder("Host=a;Database=d;MaxPoolSize=10", 15)));
        Assert.Equal((15, 0), Sizes(Builder("Host=a;Database=d;Minimum Pool Size=0", 15)));
        Assert.Equal((20, 20), Sizes(Builder("Host=a;Database=d;Minimum Pool Size=20", 15)));
        Assert.True(StorageDataSource.SetsMaxPoolSize("Host=a;maximum pool size=3"));
        Assert.False(StorageDataSource.SetsMaxPoolSize("Host=a;Minimum Pool Size=3"));

        static (int Max, int Min) Sizes(NpgsqlConnectionStringBuilder pool) => (pool.MaxPoolSize, pool.MinPoolSize);
    }

    private static NpgsqlConnectionStringBuilder Builder(string connectionString, int share) =>
        new(StorageDataSource.WithServiceDefaults(connectionString, share));
}
