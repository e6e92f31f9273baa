using Kobo.Sync.DeviceSimulator.Cli;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// The smoke profile, through the command line, against the real service on a real PostgreSQL
/// seeded by the simulator: a few seconds, a bounded number of syncs, loopback only.
/// </summary>
[Collection(EndToEndCollection.Name)]
public sealed class SmokeRunTests(SeededServiceFixture service) : IDisposable
{
    /// <summary>The charts a report draws (the start of each one's title): latency and throughput over time, and the latency distribution.</summary>
    internal static readonly string[] ReportCharts = ["Latency over time", "Throughput", "Latency distribution"];

    private readonly string _results = Path.Combine(Path.GetTempPath(), $"kobo-sim-results-{Guid.NewGuid():N}");

    [Fact]
    public async Task TheSmokeProfilePassesItsGateAndWritesItsReports()
    {
        var exit = await RunAsync("--out", _results);

        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        // PASS, or NOT PROVEN when the generator was saturated (the suite shares two cores): the thresholds are what is proven here.
        Assert.Equal(SlaGate.ExitCode(result), exit);
        var profile = LoadProfile.Load(RepositoryRoot.Profile("smoke"));
        Assert.Equal(profile.Scenarios.Count, result.Scenarios.Count);
        foreach (var scenario in result.Scenarios)
        {
            // Every sync the profile asks for is answered, at the first attempt.
            var planned = (int)Math.Round(profile.Scenarios.Single(s => (s.Read, s.Transport) == (scenario.Read, scenario.Transport)).Steps.Sum(step => step.Rate * step.DurationSeconds));
            Assert.Equal(planned, scenario.Syncs);
            Assert.Equal(0, scenario.Failed);
            Assert.Equal(planned, scenario.Attempts);
            Assert.True(scenario.Latency.P99 > 0);
        }

        // Each read over the service is set against the same read over raw PostgreSQL.
        var compared = profile.Scenarios
            .Where(s => s.Transport != Transport.Postgres && profile.Scenarios.Any(raw => raw.Transport == Transport.Postgres && raw.Read == s.Read))
            .Select(s => (s.Read, s.Transport)).Order();
        Assert.NotEmpty(compared);
        Assert.Equal(compared, result.Baseline.Where(b => b.Step is null).Select(b => (b.Read, b.Transport)).Order());
        Assert.All(result.Baseline, b => Assert.True(b.PostgresP50 > 0 && b.ServiceP50 > 0));

        // The reports say the gate's own verdict: PASS, or NOT PROVEN on a saturated generator (as the exit code above).
        var word = result.OutcomeWord;
        var html = await File.ReadAllTextAsync(Path.Combine(_results, "report.html"));
        Assert.Contains($"{word} smoke", html);
        Assert.All(ReportCharts, chart => Assert.Contains($"aria-label=\"{chart}", html));
        Assert.Contains("<polyline", html);
        Assert.DoesNotContain("<script", html);
        Assert.DoesNotContain("http://cdn", html);
        var markdown = await File.ReadAllTextAsync(Path.Combine(_results, "summary.md"));
        Assert.Contains($"# smoke: {word}", markdown);
    }

    [Fact]
    public async Task AnImpossibleThresholdFailsTheGateWithANonZeroExit()
    {
        var exit = await RunAsync("--out", _results, "--p99-ms", "0.001");

        Assert.Equal(SlaGate.FailedExitCode, exit);
        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        Assert.False(result.Passed);
        Assert.StartsWith("FAIL smoke", result.Verdict);
        Assert.Contains(result.Checks, c => c.Metric == "p99 ms" && !c.Passed);
    }

    [Fact]
    public async Task AMissingEndpointIsAUsageErrorNotARun()
    {
        var exit = await SimulatorCommands.Build().Parse(
        [
            "run", "--profile", RepositoryRoot.Profile("smoke"), "--rest", service.Rest.ToString(),
            "--signing-key", TestTokens.SigningKey, "--heaviest", service.HeaviestUsers, "--out", _results,
        ]).InvokeAsync();

        Assert.Equal(RunCommand.UsageExitCode, exit);
        Assert.False(File.Exists(Path.Combine(_results, "result.json")));
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }
    }

    private Task<int> RunAsync(params string[] extra) => service.RunSmokeAsync(extra);
}
