using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.ReleaseGate;

/// <summary>
/// load/release-gate.sh, the release gate as one command, at small scale on its own PostgreSQL and
/// service: two simulator shards as separate processes, merged, judged, and their ledgers checked
/// against the database; passing, then failing with exit code 1 when its p99 limit is made impossible;
/// the cost per sync of its judged run; and load/bench/day-kinds.sh, the gate once per kind of sync.
/// </summary>
public sealed class ReleaseGateScriptTests : IDisposable
{
    private readonly string _scratch = Path.Combine(Path.GetTempPath(), $"kobo-gate-{Guid.NewGuid():N}");

    public void Dispose()
    {
        if (Directory.Exists(_scratch))
        {
            Directory.Delete(_scratch, recursive: true);
        }
    }

    [Fact]
    public async Task TheSmallGatePassesWithNothingLostOrMissedAndFailsWithExitCodeOneWhenItsP99LimitIsImpossible()
    {
        var data = Path.Combine(_scratch, "data");
        var passing = Path.Combine(_scratch, "passing");
        var (exit, output) = await RunAsync("--small", "--no-build", "--data-dir", data, "--out", passing);

        var summary = await File.ReadAllTextAsync(Path.Combine(passing, "summary.md"));
        // PASS, or NOT PROVEN (exit code 4) when a shard's generator was saturated: the suite shares two cores.
        Assert.True(
            (exit == 0 && summary.StartsWith("# Release gate: PASS", StringComparison.Ordinal))
            || (exit == 4 && summary.StartsWith("# Release gate: NOT PROVEN", StringComparison.Ordinal)),
            output);
        Assert.Contains("| day-rest | 600 |", summary, StringComparison.Ordinal); // 600 syncs, 300 per shard, merged
        Assert.Contains("| day-rest/push |", summary, StringComparison.Ordinal);
        // A session's retries are its requests' retries, not the pages beyond its first request.
        var merged = ResultJson.Read(Path.Combine(passing, "merged", "result.json"));
        var retried = merged.Scenarios.Where(s => s.Name.StartsWith("day-rest/", StringComparison.Ordinal)).Sum(s => s.Retries);
        Assert.Matches(@"\| day-rest \| 600 \| [\d,]+ \| " + retried.ToString("N0", CultureInfo.InvariantCulture) + @" \| 0 \|", summary);
        Assert.Matches(@"acknowledged highlight changes: [1-9][\d,]*, lost: 0", summary);
        Assert.Contains("PASS: nothing lost, nothing missed", summary, StringComparison.Ordinal);
        Assert.Matches(@"\| 1 \| 300 \| [\d.]+% \|", summary); // each shard's generator
        Assert.Matches(@"\| 2 \| 300 \| [\d.]+% \|", summary);
        // and its verdict's figures: the seconds behind, the late dispatches and the seconds over the CPU limit of those judged.
        Assert.Matches(@"\| 1 \| 300 \| [\d.]+% \| [\d.]+% \| [\d:.]+ \| \d+ of \d+ \| [\d,]+ of [\d,]+ \| \d+ of \d+ \| (True|False) \|", summary);
        Assert.Contains("## p99 per 10-minute window", summary, StringComparison.Ordinal);
        Assert.Contains("## The service over the run", summary, StringComparison.Ordinal);
        Assert.Contains("## PostgreSQL over the run", summary, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(passing, "report.html")));
        Assert.Contains("<polyline", await File.ReadAllTextAsync(Path.Combine(passing, "release-gate.html")), StringComparison.Ordinal);

        // Each chart also as a file of its own, for a report to show: the p99 of each window against the limit among them.
        var byWindow = await File.ReadAllTextAsync(Path.Combine(passing, "plots", "p99-by-window.svg"));
        Assert.StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"", byWindow, StringComparison.Ordinal);
        Assert.Contains("<polyline", byWindow, StringComparison.Ordinal);
        Assert.Contains(">limit ", byWindow, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(passing, "plots", "service-memory.svg")));
        Assert.Equal(2, Directory.GetFiles(Path.Combine(passing, "ledger"), "acked-*.tsv").Length);

        // The cost per sync over the judged run, in the summary and in cost.json.
        Assert.Contains("## Cost per sync", summary, StringComparison.Ordinal);
        Assert.Matches(@"\| CPU, service process \| [\d,]+\.\d+ s \| [\d,]+\.\d µs \|", summary);
        Assert.Matches(@"\| commits \(pg_stat_database\.xact_commit, this database\) \| [\d,]+ \| [\d.]+ \|", summary);
        Assert.Contains("| WAL bytes (pg_stat_wal.wal_bytes, the server) |", summary, StringComparison.Ordinal);
        Assert.Contains("| requests sent (every attempt, retries included) |", summary, StringComparison.Ordinal);
        using (var cost = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(passing, "cost.json"))))
        {
            var root = cost.RootElement;
            Assert.Equal(600, root.GetProperty("syncs").GetInt64());
            foreach (var process in new[] { "service", "postgres", "generator", "total" })
            {
                Assert.True(root.GetProperty("cpuMicrosecondsPerSync").GetProperty(process).GetDouble() > 0, process);
            }

            Assert.True(root.GetProperty("databasePerSync").GetProperty("commits").GetDouble() > 0);
            Assert.True(root.GetProperty("requestsPerSync").GetDouble() >= 1);
            Assert.Equal(15, root.GetProperty("mix").GetProperty("active").GetDouble());
        }

        var failing = Path.Combine(_scratch, "failing");
        (exit, output) = await RunAsync("--small", "--no-build", "--data-dir", data, "--out", failing, "--p99-ms", "0.001");

        Assert.True(exit == 1, output);
        Assert.StartsWith("# Release gate: FAIL", await File.ReadAllTextAsync(Path.Combine(failing, "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task SyncsThatDoNotDivideAmongTheShardsAreRefusedBeforeAnythingStarts()
    {
        var (exit, output) = await RunAsync("--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--syncs", "601");

        Assert.Equal(2, exit);
        Assert.Contains("--syncs must divide by --shards", output, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_scratch, "data", "pgdata")));
    }

    [Theory]
    [InlineData("1", "--devices must be at least --shards")]
    [InlineData("0", "take whole numbers above 0")]
    [InlineData("2k", "take whole numbers above 0")]
    public async Task TooFewDevicesAreRefusedBeforeAnythingStarts(string devices, string message)
    {
        var (exit, output) = await RunAsync("--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--devices", devices);

        Assert.Equal(2, exit);
        Assert.Contains(message, output, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_scratch, "data", "pgdata")));
    }

    [Theory]
    [InlineData("scheduled=50", "add up to 50, not 100")]
    [InlineData("scheduled=90,reading=10", "unknown kind reading")]
    [InlineData("scheduled=100,scheduled=0", "scheduled is given twice")]
    [InlineData("scheduled=1e2", "a whole or decimal number")]
    [InlineData("scheduled=100,", "an empty entry")]
    public async Task ABadMixIsRefusedBeforeAnythingStarts(string mix, string message)
    {
        var (exit, output) = await RunAsync("--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--mix", mix);

        Assert.Equal(2, exit);
        Assert.Contains(message, output, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_scratch, "data", "pgdata")));
    }

    /// <summary>
    /// day-kinds.sh runs the gate once per kind alone (--mix KIND=100) on one seed and tabulates their cost.
    /// A scheduled sync finds nothing new: one read, and its device's position written behind with the
    /// instance's others once a second; an active one pulls, pushes, puts a reading state and pulls again,
    /// so it commits more. A day with no active syncs makes no push: its empty steps fail no check.
    /// </summary>
    [Fact]
    public async Task DayKindsRunsEachKindAloneAndAScheduledSyncCommitsLessThanAnActiveOne()
    {
        var results = Path.Combine(_scratch, "kinds");
        var (exit, output) = await RunScriptAsync(
            "load/bench/day-kinds.sh", 600, "--small", "--no-build", "--kinds", "scheduled,active", "--data-dir", Path.Combine(_scratch, "data"), "--out", results);

        Assert.True(exit == 0, output);
        var table = await File.ReadAllTextAsync(Path.Combine(results, "day-kinds.md"));
        Assert.Contains("load/bench/day-kinds.sh --small --no-build --kinds scheduled,active --data-dir ", table, StringComparison.Ordinal);
        // Scheduled syncs alone: PASS (their empty push, reading-state and pull-again steps fail no check), or NOT
        // PROVEN when a shard's generator was saturated (the suite shares two cores). Active syncs are the heaviest
        // kind: their row counts whatever their verdict.
        Assert.Matches(@"\| \[scheduled\]\(scheduled/summary\.md\) \| 600 \| (PASS|NOT PROVEN) \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d.]+ \|", table);
        Assert.Matches(@"\| \[active\]\(active/summary\.md\) \| 600 \| (PASS|NOT PROVEN|FAIL) \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d.]+ \|", table);
        Assert.Matches(@"Syncs by kind: scheduled 600 \(100\.00%\), active 0 ", await File.ReadAllTextAsync(Path.Combine(results, "scheduled", "summary.md")));
        Assert.Matches(@"Syncs by kind: scheduled 0 \(0\.00%\), active 600 \(100\.00%\)", await File.ReadAllTextAsync(Path.Combine(results, "active", "summary.md")));

        var scheduled = await CommitsPerSyncAsync(Path.Combine(results, "scheduled", "cost.json"));
        var active = await CommitsPerSyncAsync(Path.Combine(results, "active", "cost.json"));
        Assert.True(scheduled > 0 && scheduled < active, $"commits per sync: scheduled {scheduled}, active {active}\n{table}");
    }

    private static async Task<double> CommitsPerSyncAsync(string costJson)
    {
        using var cost = JsonDocument.Parse(await File.ReadAllTextAsync(costJson));
        return cost.RootElement.GetProperty("databasePerSync").GetProperty("commits").GetDouble();
    }

    private static Task<(int Exit, string Output)> RunAsync(params string[] arguments) => RunScriptAsync("load/release-gate.sh", 300, arguments);

    private static async Task<(int Exit, string Output)> RunScriptAsync(string script, int seconds, params string[] arguments)
    {
        var start = new ProcessStartInfo("timeout") { WorkingDirectory = RepositoryRoot.Path, RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(seconds.ToString(CultureInfo.InvariantCulture));
        start.ArgumentList.Add(script);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        return (process.ExitCode, await stdout + await stderr);
    }
}
