using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Reads that tolerate replica lag use <c>Storage:ReadConnectionString</c> (standbys first, load
/// spread) when it is set; Npgsql's multi-host failover picks the node.
/// </summary>
public sealed class ReadDataSourceTests(PostgresDatabase primary) : IClassFixture<PostgresDatabase>
{
    [Fact]
    public async Task DeviceReadsGoToTheReadConnectionStringWhenOneIsSet()
    {
        // The primary is an empty database; the "standby" is the demo database, which holds user 12.
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = primary.ConnectionString,
            ["Storage:ReadConnectionString"] = TwoHostsOf(SharedDemoDatabase.ConnectionString),
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest };

        Assert.Equal(200, (await RestGetUserAsync(http, 12)).Status);
        await using var command = primary.DataSource.CreateCommand("SELECT count(*) FROM users");
        Assert.Equal(0L, await command.ExecuteScalarAsync()); // migrated by the service, but not where the read came from
    }

    /// <summary>The same server listed twice: a host list as a cluster's, where no host is a standby (Npgsql falls back to the primary).</summary>
    private static string TwoHostsOf(string connectionString)
    {
        var builder = new NpgsqlConnectionStringBuilder(connectionString);
        builder.Host = $"{builder.Host}:{builder.Port},{builder.Host}:{builder.Port}";
        return builder.ConnectionString;
    }

    [Fact]
    public void TheReadSourcePrefersStandbysAndSpreadsTheLoadUnlessTheStringSaysOtherwise()
    {
        using var defaults = StorageDataSource.CreateForReads("Host=a,b,c;Database=d;Username=u");
        var built = new NpgsqlConnectionStringBuilder(defaults.ConnectionString);
        Assert.Equal("prefer-standby", built.TargetSessionAttributes);
        Assert.True(built.LoadBalanceHosts);
        Assert.Equal(StorageDataSource.DefaultHostRecheckSeconds, built.HostRecheckSeconds);

        using var given = StorageDataSource.CreateForReads("Host=a,b;Target Session Attributes=standby;Load Balance Hosts=false;Host Recheck Seconds=5");
        var kept = new NpgsqlConnectionStringBuilder(given.ConnectionString);
        Assert.Equal("standby", kept.TargetSessionAttributes);
        Assert.False(kept.LoadBalanceHosts);
        Assert.Equal(5, kept.HostRecheckSeconds);
    }
}
