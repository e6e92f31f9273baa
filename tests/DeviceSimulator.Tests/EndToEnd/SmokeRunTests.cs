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
    private readonly string _results = Path.Combine(Path.GetTempPath(), $"kobo-sim-results-{Guid.NewGuid():N}");

    [Fact]
    public async Task TheSmokeProfilePassesItsGateAndWritesItsReports()
    {
        var exit = await RunAsync("--out", _results);

        Assert.Equal(0, exit);
        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        var profile = LoadProfile.Load(RepositoryRoot.Profile("smoke"));
        Assert.Equal(profile.Scenarios.Count, result.Scenarios.Count);
        foreach (var scenario in result.Scenarios)
        {
            Assert.Equal(30, scenario.Syncs); // 10 syncs/s for 3 s, every one answered
            Assert.Equal(0, scenario.Failed);
            Assert.Equal(30, scenario.Attempts);
            Assert.True(scenario.Latency.P99 > 0);
        }

        Assert.Equal(6, result.Baseline.Count); // three reads, REST and gRPC, each over raw PostgreSQL
        Assert.All(result.Baseline, b => Assert.True(b.PostgresP50 > 0 && b.ServiceP50 > 0));

        var html = await File.ReadAllTextAsync(Path.Combine(_results, "report.html"));
        Assert.Contains("PASS smoke", html);
        Assert.Equal(3, html.Split("<svg").Length - 1);
        Assert.Contains("<polyline", html);
        Assert.DoesNotContain("<script", html);
        Assert.DoesNotContain("http://cdn", html);
        var markdown = await File.ReadAllTextAsync(Path.Combine(_results, "summary.md"));
        Assert.Contains("# smoke: PASS", markdown);
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

    private Task<int> RunAsync(params string[] extra) =>
        SimulatorCommands.Build().Parse(
        [
            "run", "--profile", RepositoryRoot.Profile("smoke"),
            "--rest", service.Rest.ToString(), "--grpc", service.Grpc.ToString(), "--postgres", service.ConnectionString,
            "--signing-key", TestTokens.SigningKey, "--heaviest", service.HeaviestUsers,
            .. extra,
        ]).InvokeAsync();
}
