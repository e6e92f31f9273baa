using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The service on the local 3-node cluster (its read-write and read strings) while the leader's
/// PostgreSQL is killed with SIGKILL: devices keep reading through the standbys, the cluster's own
/// write gap is measured with a plain writer on the read-write string, no acknowledged write is lost,
/// and the killed node rejoins as a replica. The measured windows go to the test output.
/// </summary>
public sealed class LeaderFailoverTests(LocalCluster cluster, ITestOutputHelper output) : IClassFixture<LocalCluster>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;
    private static readonly TimeSpan ReadEvery = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan WriteEvery = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan BeforeKill = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan AfterKill = TimeSpan.FromSeconds(12);

    [Fact]
    public async Task DeviceReadsKeepSucceedingThroughStandbysWhenTheLeaderIsKilledAndItRejoinsAsAReplica()
    {
        output.WriteLine($"cluster up in {cluster.StartTime.TotalSeconds:F1} s");
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = cluster.ConnectionString,
            ["Storage:ReadConnectionString"] = cluster.ReadConnectionString,
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) };
        Assert.Equal(404, (await RestGetUserAsync(http, User)).Status); // answered by the database

        await using var probe = StorageDataSource.Create(cluster.ConnectionString);
        await using (var create = probe.CreateCommand("CREATE TABLE IF NOT EXISTS failover_probe (id int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"))
        {
            await create.ExecuteNonQueryAsync();
        }

        var clock = Stopwatch.StartNew();
        using var stop = new CancellationTokenSource();
        var reads = ReadSteadilyAsync(http, clock, stop.Token);
        var writes = WriteSteadilyAsync(probe, clock, stop.Token);

        await Task.Delay(BeforeKill);
        var killedAt = clock.Elapsed;
        var killed = await cluster.KillLeaderAsync();
        output.WriteLine($"killed {killed}'s postmaster at {killedAt.TotalSeconds:F1} s");
        await Task.Delay(AfterKill);
        await stop.CancelAsync();
        var readLog = await reads;
        var writeLog = await writes;

        // Reads: every one answered by a database (standbys while the leader is gone), none slow.
        var latencies = readLog.Select(r => r.Elapsed.TotalMilliseconds).Order().ToList();
        var failedReads = readLog.Where(r => r.Status != 404).ToList();
        var p99 = latencies[(int)Math.Ceiling(latencies.Count * 0.99) - 1];
        output.WriteLine($"device reads: {readLog.Count}, failed {failedReads.Count}; p99 {p99:F0} ms, slowest {latencies[^1]:F0} ms");

        // Writes straight to the read-write string: Patroni's promotion window as a client sees it.
        var acknowledged = writeLog.Where(w => w.Ok).ToList();
        var gap = WriteGap(acknowledged.Select(w => w.End).ToList());
        var failedAfterKill = writeLog.Where(w => !w.Ok && w.Start >= killedAt).ToList();
        output.WriteLine($"cluster writes: {acknowledged.Count} acknowledged, {writeLog.Count - acknowledged.Count} failed; longest time without an acknowledged write {gap.TotalSeconds:F1} s");

        var rejoin = Stopwatch.StartNew();
        await cluster.WaitHealthyAsync(60);
        var status = await cluster.StatusAsync();
        output.WriteLine($"healthy again {rejoin.Elapsed.TotalSeconds:F1} s after the run ({(clock.Elapsed - killedAt).TotalSeconds:F1} s after the kill)");
        output.WriteLine(status);

        await using var count = probe.CreateCommand("SELECT count(*) FROM failover_probe WHERE id = ANY($1)");
        count.Parameters.Add(new NpgsqlParameter<int[]> { TypedValue = acknowledged.Select(w => w.Id).ToArray() });
        var stored = (long)(await count.ExecuteScalarAsync())!;
        output.WriteLine($"acknowledged writes present after failover: {stored}/{acknowledged.Count}");

        Assert.Empty(failedReads.Select(r => $"{r.Status} at {r.Start.TotalSeconds:F1} s"));
        Assert.True(latencies[^1] < 1000, $"slowest device read {latencies[^1]:F0} ms (p99 {p99:F0} ms)");
        Assert.True(readLog.Count(r => r.Start > killedAt) >= 50, $"only {readLog.Count(r => r.Start > killedAt)} reads after the kill");
        Assert.Contains(acknowledged, w => w.Start > killedAt + gap); // writes came back
        Assert.Equal(acknowledged.Count, stored);
        Assert.NotEmpty(failedAfterKill.Concat(writeLog.Where(w => w.Ok && w.End - w.Start > TimeSpan.FromSeconds(1)))); // the kill was felt
        var killedLine = status.Split('\n').Single(l => l.Contains($" {killed} ", StringComparison.Ordinal));
        Assert.Matches("Replica|Sync Standby", killedLine);
        Assert.Matches("streaming|running", killedLine);
    }

    private static TimeSpan WriteGap(IReadOnlyList<TimeSpan> ends) =>
        ends.Order().Zip(ends.Order().Skip(1), (a, b) => b - a).DefaultIfEmpty(TimeSpan.Zero).Max();

    private static async Task<List<Read>> ReadSteadilyAsync(HttpClient http, Stopwatch clock, CancellationToken stop)
    {
        var log = new List<Read>();
        while (!stop.IsCancellationRequested)
        {
            var start = clock.Elapsed;
            var answer = await RestGetUserAsync(http, User, "cluster-reader");
            log.Add(new Read(start, answer.Status, answer.Elapsed));
            await Task.Delay(ReadEvery, CancellationToken.None);
        }

        return log;
    }

    private static async Task<List<Write>> WriteSteadilyAsync(NpgsqlDataSource probe, Stopwatch clock, CancellationToken stop)
    {
        var log = new List<Write>();
        for (var id = 1; !stop.IsCancellationRequested; id++)
        {
            var start = clock.Elapsed;
            try
            {
                await using var insert = probe.CreateCommand("INSERT INTO failover_probe (id) VALUES ($1)");
                insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = id });
                insert.CommandTimeout = 5;
                await insert.ExecuteNonQueryAsync(CancellationToken.None);
                log.Add(new Write(id, start, clock.Elapsed, Ok: true));
            }
            catch (Exception e) when (e is NpgsqlException or InvalidOperationException or TimeoutException)
            {
                log.Add(new Write(id, start, clock.Elapsed, Ok: false));
            }

            await Task.Delay(WriteEvery, CancellationToken.None);
        }

        return log;
    }

    private readonly record struct Read(TimeSpan Start, int Status, TimeSpan Elapsed);

    private readonly record struct Write(int Id, TimeSpan Start, TimeSpan End, bool Ok);
}
