using Kobo.Sync.DeviceSimulator.Cli;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Scenarios.Day;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// A fleet's day (the release gate's scenario) through the command line against the real service,
/// over REST and gRPC, with its ledger, and the ledger checked against the database: passing when the
/// database holds what the devices were told, failing when an acknowledged highlight is taken away or
/// a pull claims less than its range holds.
/// </summary>
[Collection(EndToEndCollection.Name)]
public sealed class DayRunTests(SeededServiceFixture service) : IDisposable
{
    private readonly string _scratch = Path.Combine(Path.GetTempPath(), $"kobo-sim-day-{Guid.NewGuid():N}");

    private string Results => Path.Combine(_scratch, "results");

    private string Ledger => Path.Combine(_scratch, "ledger");

    [Fact]
    public async Task ADayOfDistinctDevicesPassesItsGateAndItsLedgerMatchesTheDatabaseUntilARowGoesMissing()
    {
        Directory.CreateDirectory(_scratch);
        var profile = Path.Combine(_scratch, "day.json");
        await File.WriteAllTextAsync(profile, """
            {
              "name": "day-test", "seed": 4, "devices": 100000, "maxConcurrency": 32, "spacing": "uniform", "warmUpSyncs": 2,
              "device": { "timeoutMs": 3000, "maxRetries": 3, "baseDelayMs": 100, "maxDelayMs": 1000 },
              "thresholds": { "p99Ms": 5000, "failedSyncPercent": 0.1 },
              "scenarios": [
                { "read": "day", "transport": "rest", "pageSize": 20, "mix": { "scheduled": 40, "active": 40, "firstSync": 10, "drawer": 10 },
                  "steps": [ { "rate": 40, "durationSeconds": 3 } ] },
                { "read": "day", "transport": "grpc", "pageSize": 20, "mix": { "scheduled": 40, "active": 40, "firstSync": 10, "drawer": 10 },
                  "steps": [ { "rate": 40, "durationSeconds": 3 } ] } ]
            }
            """);

        var exit = await SimulatorCommands.Build().Parse(
        [
            "run", "--profile", profile, "--rest", service.Rest.ToString(), "--grpc", service.Grpc.ToString(),
            "--signing-key", TestTokens.SigningKey, "--cursor-key", TestTokens.CursorKey, "--heaviest", service.HeaviestUsers,
            "--ledger", Ledger, "--out", Results,
        ]).InvokeAsync();

        var result = ResultJson.Read(Path.Combine(Results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        // PASS, or NOT PROVEN when the generator was saturated (the suite shares two cores): the thresholds are what is proven here.
        Assert.Equal(SlaGate.ExitCode(result), exit);
        foreach (var name in new[] { "day-rest", "day-grpc" })
        {
            Assert.Equal(120, Assert.Single(result.Scenarios, s => s.Name == name).Syncs);
            foreach (var step in new[] { "pull", "push", "reading-state", "pull-again" })
            {
                var s = Assert.Single(result.Scenarios, s => s.Name == $"{name}/{step}");
                Assert.True(s.Syncs > 0 && s.Failed == 0, $"{name}/{step}: {s.Syncs} requests, {s.Failed} failed");
            }
        }

        var verdict = await DayVerification.CheckAsync(service.ConnectionString, [Ledger], _ => { }, CancellationToken.None);
        Assert.True(verdict.Passed, verdict.Describe());
        Assert.True(verdict.AcknowledgedHighlights >= 3 * 40, verdict.Describe()); // every active sync's three changes, at 40 % of 240
        Assert.True(verdict.AcknowledgedReadingStates >= 40, verdict.Describe());
        foreach (var kind in new[] { "Active", "Drawer", "FirstSync" })
        {
            var pulls = Assert.Single(verdict.Pulls, p => p.Kind == kind);
            Assert.True(pulls.Received > 0 && pulls.Received == pulls.InDatabase, verdict.Describe());
        }

        var day = await File.ReadAllTextAsync(Path.Combine(Ledger, "day-1of1.json"));
        Assert.Contains("\"unexpectedChanges\": 0", day, StringComparison.Ordinal);

        // An acknowledged highlight taken away, and a pull that claims one change fewer than its range holds.
        var acked = (await File.ReadAllLinesAsync(Directory.GetFiles(Ledger, "acked-*.tsv").Single())).First(l => l.StartsWith("h\t", StringComparison.Ordinal) && l.EndsWith("\t0", StringComparison.Ordinal));
        await using (var connection = new NpgsqlConnection(service.ConnectionString))
        {
            await connection.OpenAsync();
            await using var delete = new NpgsqlCommand("DELETE FROM highlights WHERE id = $1", connection) { Parameters = { new() { Value = acked.Split('\t')[2] } } };
            Assert.Equal(1, await delete.ExecuteNonQueryAsync());
        }

        var pullsFile = Directory.GetFiles(Ledger, "pulls-*.tsv").Single();
        var lines = await File.ReadAllLinesAsync(pullsFile);
        var drawer = Array.FindIndex(lines, l => l.Split('\t') is [_, "Drawer", .., var n] && long.Parse(n, System.Globalization.CultureInfo.InvariantCulture) > 0);
        var fields = lines[drawer].Split('\t');
        fields[^1] = (long.Parse(fields[^1], System.Globalization.CultureInfo.InvariantCulture) - 1).ToString(System.Globalization.CultureInfo.InvariantCulture);
        lines[drawer] = string.Join('\t', fields);
        await File.WriteAllLinesAsync(pullsFile, lines);

        var broken = await DayVerification.CheckAsync(service.ConnectionString, [Ledger], _ => { }, CancellationToken.None);
        Assert.False(broken.Passed);
        Assert.Equal(1, broken.LostHighlights);
        Assert.True(broken.Missed >= 1, broken.Describe());
        Assert.True(Assert.Single(broken.Pulls, p => p.Kind == "Drawer").PullsMissing == 1, broken.Describe());

        var code = await SimulatorCommands.Build().Parse(["verify", Ledger, "--postgres", service.ConnectionString, "--out", _scratch]).InvokeAsync();
        Assert.Equal(1, code);
        Assert.Contains("FAIL", await File.ReadAllTextAsync(Path.Combine(_scratch, "verify.md")), StringComparison.Ordinal);
    }

    public void Dispose()
    {
        if (Directory.Exists(_scratch))
        {
            Directory.Delete(_scratch, recursive: true);
        }
    }
}
