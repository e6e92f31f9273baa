using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The local cluster with pgBackRest archiving every 5 s (<c>archive_timeout</c>; production's 30 s
/// makes the drill longer, not different) and its repository on local disk.
/// </summary>
public sealed class BackedUpCluster : LocalCluster
{
    public const int ArchiveTimeoutSeconds = 5;

    protected override IReadOnlyDictionary<string, string> Settings { get; } = new Dictionary<string, string>
    {
        ["KOBO_CLUSTER_ARCHIVE_TIMEOUT"] = $"{ArchiveTimeoutSeconds}s",
        ["KOBO_CLUSTER_RETENTION_FULL"] = "2",
    };
}

/// <summary>
/// The whole cluster lost and restored from its pgBackRest repository (<c>cluster.sh restore-drill</c>)
/// while a writer and a device (pushing through the service, in process on the cluster's strings)
/// keep writing: a full backup under the writes, a point in time T, the loss of every node's data,
/// a restore to the latest archived point and then one to T. The ledger of acknowledged writes
/// decides: at T, every write acknowledged before it is back and none sent after it; at the latest
/// point, no write acknowledged more than the archive's lag before the loss is lost. And archiving
/// after a switchover (the new leader's WAL reaches the repository) and the retention: the repository
/// keeps the two newest full backups and what depends on them.
/// </summary>
/// <remarks>
/// It runs in <see cref="ClusterCollection"/>: a backup, two restores and three nodes copying each other
/// load the cores enough to push the failover tests' requests past their budget if they ran beside it.
/// </remarks>
[Collection(ClusterCollection.Name)]
public sealed partial class RestoreDrillTests(BackedUpCluster cluster, ITestOutputHelper output) : IClassFixture<BackedUpCluster>
{
    private const long User = 7_400_001;
    private static readonly TimeSpan DrillLimit = TimeSpan.FromMinutes(6);
    private static readonly TimeSpan BackupLimit = TimeSpan.FromMinutes(2);

    [Fact]
    public async Task ARestoreToTHasEveryWriteAcknowledgedBeforeTAndNoneAfterItAndTheLatestPointLosesOnlyTheUnarchivedTail()
    {
        output.WriteLine($"cluster up in {cluster.StartTime.TotalSeconds:F1} s");
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = cluster.StartService(rest);
        using (var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) })
        {
            Assert.Equal(404, (await RestGetUserAsync(http, User)).Status); // answered by the database
        }

        var report = await cluster.RunAsync(
            DrillLimit,
            "restore-drill",
            "--service", rest.ToString().TrimEnd('/'),
            "--token", TestTokens.For(User, "drill-device"),
            "--user", User.ToString(CultureInfo.InvariantCulture),
            "--after-backup", "4",
            "--after-target", (3 * BackedUpCluster.ArchiveTimeoutSeconds).ToString(CultureInfo.InvariantCulture));
        output.WriteLine(report);

        // At T: the script's ledger check, read back (it also exits non-zero when it fails).
        var atTarget = TargetLine().Matches(report).ToDictionary(m => m.Groups["what"].Value);
        Assert.Equal(["device pushes", "writes"], atTarget.Keys.Order());
        Assert.All(atTarget.Values, m =>
        {
            Assert.True(Count(m, "before") > 10, $"only {Count(m, "before")} {m.Groups["what"].Value} acknowledged before T");
            Assert.Equal(Count(m, "before"), Count(m, "presentBefore"));
            Assert.True(Count(m, "after") > 10, $"only {Count(m, "after")} {m.Groups["what"].Value} sent after T");
            Assert.Equal(0, Count(m, "presentAfter"));
        });

        // At the latest point: what is lost is the tail the archive had not taken, seconds, never a minute.
        var atLatest = LatestLine().Matches(report).ToDictionary(m => m.Groups["what"].Value);
        Assert.Equal(["device pushes", "writes"], atLatest.Keys.Order());
        Assert.All(atLatest.Values, m =>
        {
            var oldest = double.Parse(m.Groups["oldest"].Value, CultureInfo.InvariantCulture);
            Assert.True(oldest <= 60, $"a {m.Groups["what"].Value} acknowledged {oldest} s before the loss was lost");
        });

        // Devices are served again after each restore, through the same service process.
        var rto = RtoLine().Matches(report).Select(m => double.Parse(m.Groups["seconds"].Value, CultureInfo.InvariantCulture)).ToList();
        Assert.Equal(2, rto.Count);
        output.WriteLine($"RTO: latest {rto[0]:F1} s, T {rto[1]:F1} s");
    }

    [Fact]
    public async Task AfterASwitchoverTheNewLeaderArchivesAndExpiryKeepsTheTwoNewestFullBackupsWithTheMetricFollowingTheRepository()
    {
        var first = await BackupAsync("full");
        string firstTimeline;
        using (var before = JsonDocument.Parse(await cluster.RunAsync(BackupLimit, "info", "--output=json")))
        {
            firstTimeline = Timeline(before.RootElement[0], first);
        }
        // A planned switchover in between: the new leader archives (the backup waits for its WAL in the repository).
        await cluster.RunAsync(BackupLimit, "switchover");
        var dependent = await BackupAsync("incr");
        var second = await BackupAsync("full");
        var third = await BackupAsync("full");
        await cluster.RunAsync(BackupLimit, "verify");

        using var info = JsonDocument.Parse(await cluster.RunAsync(BackupLimit, "info", "--output=json"));
        var stanza = info.RootElement[0];
        var labels = stanza.GetProperty("backup").EnumerateArray().Select(b => b.GetProperty("label").GetString()!).ToList();
        output.WriteLine($"created {first}, {dependent}, {second}, {third}; kept {string.Join(", ", labels)}");
        Assert.DoesNotContain(first, labels);
        Assert.DoesNotContain(dependent, labels);
        Assert.Equal([second, third], labels.Where(l => l.EndsWith('F')));
        Assert.True(string.CompareOrdinal(firstTimeline, Timeline(stanza, second)) < 0, $"the backups after the switchover are on timeline {Timeline(stanza, second)}, the first one on {firstTimeline}");

        // The archive is kept from the oldest kept backup on, and no further back.
        var oldestKept = stanza.GetProperty("backup").EnumerateArray().First(b => b.GetProperty("label").GetString() == second);
        var archiveMin = stanza.GetProperty("archive").EnumerateArray().Last().GetProperty("min").GetString();
        Assert.Equal(oldestKept.GetProperty("archive").GetProperty("start").GetString(), archiveMin);

        var metric = await File.ReadAllTextAsync(Path.Combine(cluster.StateDirectory, "textfile", "kobo_sync_backup.prom"));
        output.WriteLine(metric);
        var stops = stanza.GetProperty("backup").EnumerateArray()
            .GroupBy(b => b.GetProperty("type").GetString()!)
            .ToDictionary(g => g.Key, g => g.Max(b => b.GetProperty("timestamp").GetProperty("stop").GetInt64()));
        Assert.Contains("# TYPE kobo_sync_backup_last_success_timestamp_seconds gauge", metric, StringComparison.Ordinal);
        Assert.Contains($"kobo_sync_backup_last_success_timestamp_seconds{{type=\"full\"}} {stops["full"]}\n", metric, StringComparison.Ordinal);
        Assert.Matches(@"(?m)^kobo_sync_backup_verify_last_success_timestamp_seconds \d{10}$", metric);
        Assert.InRange(stops["full"], DateTimeOffset.UtcNow.AddMinutes(-5).ToUnixTimeSeconds(), DateTimeOffset.UtcNow.ToUnixTimeSeconds());
    }

    /// <summary>The timeline of a backup's first WAL segment (its name's first 8 hex digits).</summary>
    private static string Timeline(JsonElement stanza, string label) =>
        stanza.GetProperty("backup").EnumerateArray().Single(b => b.GetProperty("label").GetString() == label)
            .GetProperty("archive").GetProperty("start").GetString()![..8];

    private async Task<string> BackupAsync(string type) =>
        (await cluster.RunAsync(BackupLimit, "backup", type)).Trim().Split('\n')[^1].Trim();

    private static int Count(Match m, string group) => int.Parse(m.Groups[group].Value, CultureInfo.InvariantCulture);

    [GeneratedRegex(@"^target (?<what>writes|device pushes): acknowledged before T present (?<presentBefore>\d+)/(?<before>\d+); sent after T present (?<presentAfter>\d+)/(?<after>\d+)", RegexOptions.Multiline)]
    private static partial Regex TargetLine();

    [GeneratedRegex(@"^latest (?<what>writes|device pushes) lost: \d+; oldest lost acknowledged (?<oldest>[0-9.]+) s before the loss", RegexOptions.Multiline)]
    private static partial Regex LatestLine();

    [GeneratedRegex(@"acknowledged again (?<seconds>[0-9.]+) s after the restore started \(RTO\)", RegexOptions.Multiline)]
    private static partial Regex RtoLine();
}
