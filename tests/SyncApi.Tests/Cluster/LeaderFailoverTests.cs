using System.Diagnostics;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DevicePushes;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The service on the local 3-node cluster (its read-write and read strings) while the leader is
/// killed with SIGKILL, its PostgreSQL alone or its whole node (Patroni too, as a lost machine):
/// devices keep reading through the standbys; device pushes are refused with 503 and Retry-After only
/// while Patroni promotes a standby (whose own write gap a plain writer on the read-write string
/// measures alongside) and then succeed; no write acknowledged by the service or the cluster is lost;
/// the killed node rejoins as a replica (by itself after a postmaster kill, once restarted after a
/// node kill). Devices waiting for changes (live pull, REST <c>wait</c>) throughout receive every
/// acknowledged push, before and after the failover: the service's change listener follows the
/// primary, and the re-check after it listens again brings what was notified while it could not.
/// The measured windows go to the test output.
/// </summary>
[Collection(ClusterCollection.Name)]
public sealed class LeaderFailoverTests(LocalCluster cluster, ITestOutputHelper output) : IClassFixture<LocalCluster>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;
    private const long Pusher = 4242;
    private static readonly TimeSpan ReadEvery = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan WriteEvery = TimeSpan.FromMilliseconds(100);

    /// <summary>How much longer than the cluster's own write gap the service's may be (Npgsql rechecks hosts every second).</summary>
    private static readonly TimeSpan ServiceGapAllowance = TimeSpan.FromSeconds(2);
    private static readonly TimeSpan BeforeKill = TimeSpan.FromSeconds(3);

    /// <summary>How soon after the run the waiting devices must hold every acknowledged push (their waits last 20 s).</summary>
    private static readonly TimeSpan LiveDeliveryLimit = TimeSpan.FromSeconds(10);

    [Fact]
    public Task ReadsKeepSucceedingAndPushesResumeWithinTheClusterWriteGapWhenTheLeadersPostgresIsKilledAndItRejoinsAsAReplica() =>
        FailoverAsync(wholeNode: false, afterKill: TimeSpan.FromSeconds(12));

    /// <summary>The leader key must expire (Patroni's ttl, 10 s) before a standby may take over: a longer window.</summary>
    [Fact]
    public Task ReadsKeepSucceedingAndPushesResumeWithinTheClusterWriteGapWhenTheLeadersWholeNodeIsKilledAndItRejoinsOnceRestarted() =>
        FailoverAsync(wholeNode: true, afterKill: TimeSpan.FromSeconds(22));

    private async Task FailoverAsync(bool wholeNode, TimeSpan afterKill)
    {
        var run = wholeNode ? "node" : "postmaster";
        var firstProbeId = wholeNode ? 1_000_000 : 1;
        output.WriteLine($"cluster up in {cluster.StartTime.TotalSeconds:F1} s");
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = cluster.StartService(rest);
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) };
        Assert.Equal(404, (await RestGetUserAsync(http, User)).Status); // answered by the database

        await using var probe = StorageDataSource.Create(cluster.ConnectionString);
        await using (var create = probe.CreateCommand("CREATE TABLE IF NOT EXISTS failover_probe (id int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"))
        {
            await create.ExecuteNonQueryAsync();
        }

        await AddUserAsync(probe, Pusher);

        Assert.True((await PushHighlightAsync(http, Pusher, $"warm-up-{run}")).Acknowledged);

        var clock = Stopwatch.StartNew();
        using var stop = new CancellationTokenSource();
        var reads = ReadSteadilyAsync(http, clock, stop.Token);
        var writes = WriteSteadilyAsync(probe, firstProbeId, clock, stop.Token);
        var pushes = PushSteadilyAsync(http, run, clock, stop.Token);
        using var stopWaiting = new CancellationTokenSource();
        var waiting = new[] { new LiveDevice("waiting-1"), new LiveDevice("waiting-2") };
        var waits = waiting.Select(d => d.WaitSteadilyAsync(rest, Pusher, stopWaiting.Token)).ToArray();

        await Task.Delay(BeforeKill);
        var killedAt = clock.Elapsed;
        var killed = await cluster.KillLeaderAsync(wholeNode);
        output.WriteLine($"killed {killed}'s {(wholeNode ? "whole node (Patroni and PostgreSQL)" : "postmaster")} at {killedAt.TotalSeconds:F1} s");
        await Task.Delay(afterKill);
        await stop.CancelAsync();
        var readLog = await reads;
        var writeLog = await writes;
        var pushLog = await pushes;

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

        // Pushes through the service: refused only while there is no primary, then acknowledged again.
        var pushed = pushLog.Where(p => p.Push.Acknowledged).ToList();
        var refusedPushes = pushLog.Where(p => !p.Push.Acknowledged).ToList();
        var serviceGap = WriteGap(pushed.Select(p => p.Start + p.Push.Elapsed).ToList());
        var window = refusedPushes.Count == 0 ? "none" : $"{refusedPushes[0].Start.TotalSeconds:F1}-{refusedPushes[^1].Start.TotalSeconds:F1} s";
        output.WriteLine($"device pushes: {pushed.Count} acknowledged, {refusedPushes.Count} refused ({string.Join(",", refusedPushes.Select(p => p.Push.Status).Distinct())}) at {window}; longest time without an acknowledged push {serviceGap.TotalSeconds:F1} s, slowest push {pushLog.Max(p => p.Push.Elapsed.TotalMilliseconds):F0} ms");

        // Every acknowledged push reaches the waiting devices without a pull of their own.
        var delivered = Stopwatch.StartNew();
        var ackedIds = pushed.Select(p => HighlightId(Pusher, p.Push.Key)).ToList();
        while (delivered.Elapsed < LiveDeliveryLimit && waiting.Any(d => d.Missing(ackedIds) > 0))
        {
            await Task.Delay(100);
        }

        await stopWaiting.CancelAsync();
        await Task.WhenAll(waits);
        output.WriteLine($"waiting devices: {string.Join(", ", waiting.Select(d => $"{d.Name} {d.Answers} answers, {d.Refusals} refused, missing {d.Missing(ackedIds)}/{ackedIds.Count}"))}; complete {delivered.Elapsed.TotalSeconds:F1} s after the run");

        var rejoin = Stopwatch.StartNew();
        if (wholeNode)
        {
            await cluster.RestartAsync(killed); // the machine comes back
        }

        await cluster.WaitHealthyAsync(60);
        var status = await cluster.StatusAsync();
        output.WriteLine($"healthy again {rejoin.Elapsed.TotalSeconds:F1} s after the run ({(clock.Elapsed - killedAt).TotalSeconds:F1} s after the kill)");
        output.WriteLine(status);

        await using var count = probe.CreateCommand("SELECT count(*) FROM failover_probe WHERE id = ANY($1)");
        count.Parameters.Add(new NpgsqlParameter<int[]> { TypedValue = acknowledged.Select(w => w.Id).ToArray() });
        var stored = (long)(await count.ExecuteScalarAsync())!;
        output.WriteLine($"acknowledged writes present after failover: {stored}/{acknowledged.Count}");
        await using var countPushed = probe.CreateCommand("SELECT count(*) FROM highlights WHERE id = ANY($1)");
        countPushed.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = pushed.Select(p => HighlightId(Pusher, p.Push.Key)).ToArray() });
        var storedPushes = (long)(await countPushed.ExecuteScalarAsync())!;
        output.WriteLine($"acknowledged pushes present after failover: {storedPushes}/{pushed.Count}");

        Assert.All(waiting, d => Assert.Equal(0, d.Missing(ackedIds)));
        Assert.Empty(failedReads.Select(r => $"{r.Status} at {r.Start.TotalSeconds:F1} s"));
        Assert.True(p99 < 1000, $"device reads' p99 {p99:F0} ms (slowest {latencies[^1]:F0} ms)");
        Assert.True(latencies[^1] < 2000, $"slowest device read {latencies[^1]:F0} ms: a read waited on the dead node");
        Assert.True(readLog.Count(r => r.Start > killedAt) >= 50, $"only {readLog.Count(r => r.Start > killedAt)} reads after the kill");
        Assert.Contains(acknowledged, w => w.Start > killedAt + gap); // writes came back
        Assert.Equal(acknowledged.Count, stored);
        Assert.Equal(pushed.Count, storedPushes);
        Assert.All(refusedPushes, p =>
        {
            Assert.True(p.Push.Status == 503 && p.Push.RetryAfter is not null, $"push at {p.Start.TotalSeconds:F1} s: {p.Push.Status}, Retry-After {p.Push.RetryAfter}");
            Assert.InRange(p.Start, killedAt - TimeSpan.FromSeconds(1), killedAt + gap + ServiceGapAllowance);
        });
        Assert.True(serviceGap <= gap + ServiceGapAllowance, $"the service went {serviceGap.TotalSeconds:F1} s without an acknowledged push, the cluster {gap.TotalSeconds:F1} s");
        Assert.Contains(pushed, p => p.Start > killedAt + gap); // pushes came back
        Assert.All(pushLog.TakeLast(10), p => Assert.True(p.Push.Acknowledged, $"push at {p.Start.TotalSeconds:F1} s: {p.Push.Status}"));
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

    private static async Task<List<Write>> WriteSteadilyAsync(NpgsqlDataSource probe, int firstId, Stopwatch clock, CancellationToken stop)
    {
        var log = new List<Write>();
        for (var id = firstId; !stop.IsCancellationRequested; id++)
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

    private static async Task<List<(TimeSpan Start, Push Push)>> PushSteadilyAsync(HttpClient http, string run, Stopwatch clock, CancellationToken stop)
    {
        var log = new List<(TimeSpan, Push)>();
        for (var i = 1; !stop.IsCancellationRequested; i++)
        {
            var start = clock.Elapsed;
            log.Add((start, await PushHighlightAsync(http, Pusher, $"failover-{run}-{i}", "cluster-pusher")));
            await Task.Delay(WriteEvery, CancellationToken.None);
        }

        return log;
    }

    private readonly record struct Read(TimeSpan Start, int Status, TimeSpan Elapsed);

    private readonly record struct Write(int Id, TimeSpan Start, TimeSpan End, bool Ok);
}
