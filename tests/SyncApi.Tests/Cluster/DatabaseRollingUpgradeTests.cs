using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DevicePushes;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The field's promise for a planned upgrade of the database: every node of the local 3-node cluster
/// taken down and brought back in turn (<c>cluster.sh rolling-upgrade</c>: replicas first, the leader
/// last after a planned switchover; a restart stands in for the package upgrade), each serving again
/// within 60 s, while devices keep syncing through the service (in process, on the cluster's
/// read-write and read strings) and others wait for changes. Devices retry as real ones do
/// (<see cref="RetryingDevice"/>): after <c>Retry-After</c>, with backoff and jitter, a bounded number
/// of times. No sync may fail after its retries, every acknowledged push must be in the database
/// afterwards, and every waiting device must have been sent every acknowledged push of its user.
/// The measured figures go to the test output.
/// </summary>
[Collection(ClusterCollection.Name)]
public sealed partial class DatabaseRollingUpgradeTests(LocalCluster cluster, ITestOutputHelper output) : IClassFixture<LocalCluster>
{
    private const long FirstUser = 7_300_001;
    private const int Users = 8;

    /// <summary>Retries per call: a switchover's write pause is a few seconds, the service advises 1-2 s between tries.</summary>
    private const int DeviceRetries = 6;

    private const int MaxDownSeconds = 60;

    private static readonly TimeSpan SyncPause = TimeSpan.FromMilliseconds(400);
    private static readonly TimeSpan BeforeUpgrade = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan AfterUpgrade = TimeSpan.FromSeconds(3);

    /// <summary>How soon after the run the waiting devices must hold every acknowledged push (their waits last 20 s).</summary>
    private static readonly TimeSpan LiveDeliveryLimit = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task NoDeviceSyncFailsAndNoAcknowledgedPushIsLostWhileEveryNodeIsUpgradedInTurnAndEachServesAgainWithinAMinute()
    {
        output.WriteLine($"cluster up in {cluster.StartTime.TotalSeconds:F1} s");
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = cluster.StartService(rest);
        using (var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) })
        {
            Assert.Equal(404, (await RestGetUserAsync(http, FirstUser - 1)).Status); // answered by the database
        }

        await using var database = StorageDataSource.Create(cluster.ConnectionString);
        var users = Enumerable.Range(0, Users).Select(i => FirstUser + i).ToList();
        foreach (var user in users)
        {
            await AddUserAsync(database, user);
        }

        var clock = Stopwatch.StartNew();
        using var stopWaiting = new CancellationTokenSource();
        var waiting = users.Select(u => (User: u, Device: new LiveDevice($"waiting-{u}"))).ToList();
        var waits = waiting.Select(w => w.Device.WaitSteadilyAsync(rest, w.User, stopWaiting.Token)).ToArray();
        using var stop = new CancellationTokenSource();
        var devices = users.Select((u, i) => new RetryingDevice(rest, u, $"reader-{u}", DeviceRetries, seed: i)).ToList();
        var syncing = devices.Select(d => d.SyncSteadilyAsync(clock, SyncPause, stop.Token)).ToArray();

        await Task.Delay(BeforeUpgrade);
        var upgradeStart = clock.Elapsed;
        var upgrade = await cluster.RollingUpgradeAsync();
        var upgradeEnd = clock.Elapsed;
        await Task.Delay(AfterUpgrade);
        await stop.CancelAsync();
        var syncs = (await Task.WhenAll(syncing)).SelectMany(s => s).ToList();

        var down = DownLine().Matches(upgrade).ToDictionary(m => m.Groups[1].Value, m => double.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture));
        output.WriteLine($"rolling upgrade {upgradeStart.TotalSeconds:F1}-{upgradeEnd.TotalSeconds:F1} s: {string.Join(", ", down.Select(d => $"{d.Key} down {d.Value:F1} s"))}");

        var failed = syncs.Where(s => !s.Acknowledged).ToList();
        var acked = syncs.Where(s => s.Acknowledged).ToList();
        var durations = syncs.Select(s => (s.End - s.Start).TotalMilliseconds).Order().ToList();
        var duringUpgrade = syncs.Count(s => s.Start >= upgradeStart && s.Start <= upgradeEnd);
        var writeGap = Gap(acked.Where(s => s.End >= upgradeStart).Select(s => s.End).ToList());
        output.WriteLine(
            $"device syncs: {syncs.Count} ({duringUpgrade} during the upgrade), failed {failed.Count}, retries {devices.Sum(d => d.Retries)}; "
            + $"sync p50 {Percentile(durations, 0.50):F0} ms, p99 {Percentile(durations, 0.99):F0} ms, slowest {durations[^1]:F0} ms; "
            + $"longest time without an acknowledged push {writeGap.TotalSeconds:F1} s");

        // Every acknowledged push reaches its user's waiting device without a pull of its own.
        var delivered = Stopwatch.StartNew();
        var ackedIds = acked.GroupBy(s => s.User).ToDictionary(g => g.Key, g => g.Select(s => HighlightId(s.User, s.Key)).ToList());
        int Missing((long User, LiveDevice Device) w) => w.Device.Missing(ackedIds.GetValueOrDefault(w.User, []));
        while (delivered.Elapsed < LiveDeliveryLimit && waiting.Any(w => Missing(w) > 0))
        {
            await Task.Delay(100);
        }

        await stopWaiting.CancelAsync();
        await Task.WhenAll(waits);
        output.WriteLine(
            $"waiting devices: {waiting.Sum(w => w.Device.Answers)} answers, {waiting.Sum(w => w.Device.Refusals)} refused, "
            + $"missing {waiting.Sum(Missing)}/{acked.Count}; complete {delivered.Elapsed.TotalSeconds:F1} s after the run");

        // Idle connections of the pool were opened to nodes the upgrade has restarted since: drop them,
        // so the count runs on a connection to the cluster as it is now.
        database.Clear();
        await using var count = database.CreateCommand("SELECT count(*) FROM highlights WHERE id = ANY($1)");
        count.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = acked.Select(s => HighlightId(s.User, s.Key)).ToArray() });
        var stored = (long)(await count.ExecuteScalarAsync())!;
        output.WriteLine($"acknowledged pushes present after the upgrade: {stored}/{acked.Count}");
        output.WriteLine(await cluster.StatusAsync());

        Assert.Equal(["node1", "node2", "node3"], down.Keys.Order());
        Assert.All(down, d => Assert.True(d.Value <= MaxDownSeconds, $"{d.Key} served again {d.Value:F1} s after its stop"));
        Assert.Empty(failed.Select(s => $"{s.Key} at {s.Start.TotalSeconds:F1} s: {s.Failure}"));
        Assert.True(duringUpgrade >= 100, $"only {duringUpgrade} syncs during the upgrade");
        Assert.True(devices.Sum(d => d.Retries) > 0, "no device retried: the upgrade was not felt"); // the retries carried them
        Assert.Equal(acked.Count, stored);
        Assert.All(waiting, w => Assert.Equal(0, Missing(w)));
    }

    private static double Percentile(IReadOnlyList<double> sorted, double share) =>
        sorted[Math.Max(0, (int)Math.Ceiling(sorted.Count * share) - 1)];

    private static TimeSpan Gap(IReadOnlyList<TimeSpan> ends) =>
        ends.Order().Zip(ends.Order().Skip(1), (a, b) => b - a).DefaultIfEmpty(TimeSpan.Zero).Max();

    [GeneratedRegex(@"^(node\d) down ([0-9.]+) s$", RegexOptions.Multiline)]
    private static partial Regex DownLine();
}
