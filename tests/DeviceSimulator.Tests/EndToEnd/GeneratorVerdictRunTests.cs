using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// The generator's verdict on real runs of the smoke profile (10 syncs/s per scenario for 3 s) against
/// the real service: an unhindered generator is proven, whatever its first calls cost, and the same
/// profile with a generator starved of time (every dispatch burns 150 ms of CPU, so each scenario can
/// dispatch at most 6.7 of its 10 syncs a second and falls further behind with each) is not proven,
/// and says why with its figures.
/// </summary>
[Collection(EndToEndCollection.Name)]
public sealed class GeneratorVerdictRunTests(SeededServiceFixture service) : IDisposable
{
    private readonly string _results = Path.Combine(Path.GetTempPath(), $"kobo-sim-results-{Guid.NewGuid():N}");

    [Fact]
    public async Task TheSmokeProfileWithAnUnhinderedGeneratorIsProven()
    {
        var exit = await RunAsync();

        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        var verdict = Assert.IsType<GeneratorVerdict>(result.Generator.Verdict);
        Assert.True(exit == 0, $"{result.Verdict} | {verdict.Summary()}");
        Assert.Equal(RunOutcome.Pass, result.Outcome);
        Assert.False(result.Generator.Saturated);
        // Every dispatch of the run is in the generator's seconds, and those after the warm-up were judged.
        Assert.Equal(270, result.Generator.Seconds.Sum(s => s.Dispatches));
        Assert.True(verdict.JudgedDispatches >= 90, verdict.Summary());
        var summary = await File.ReadAllTextAsync(Path.Combine(_results, "summary.md"));
        Assert.Contains("Generator not saturated: after the first 1 s, behind in ", summary);
    }

    [Fact]
    public async Task TheSmokeProfileWithAStarvedGeneratorIsNotProvenAndSaysWhy()
    {
        var exit = await RunAsync("--dispatch-burn-ms", "150");

        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        var verdict = Assert.IsType<GeneratorVerdict>(result.Generator.Verdict);
        Assert.True(result.Passed, result.Verdict);
        Assert.Equal(SlaGate.NotProvenExitCode, exit);
        Assert.Equal(RunOutcome.NotProven, result.Outcome);
        // Behind for the whole run after its first second, not on a percentile: each scenario's 30
        // dispatches take at least 4.5 s, every one after the first later than the one before.
        Assert.True(verdict.LateDispatching, verdict.Summary());
        Assert.True(verdict.BehindSeconds >= 3, verdict.Summary());
        Assert.True(verdict.LateDispatches >= 150, verdict.Summary());
        Assert.Equal(270, result.Generator.Seconds.Sum(s => s.Dispatches));
        Assert.StartsWith("NOT PROVEN smoke: the generator was saturated (behind in ", result.Verdict);
        var summary = await File.ReadAllTextAsync(Path.Combine(_results, "summary.md"));
        Assert.Contains("# smoke: NOT PROVEN", summary);
        Assert.Contains($"Generator saturated: after the first 1 s, behind in {verdict.BehindSeconds} of {verdict.JudgedSeconds} seconds", summary);
        Assert.Contains("**Warning:** the load generator was saturated (behind in", summary);
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }
    }

    private Task<int> RunAsync(params string[] extra) => service.RunSmokeAsync([.. extra, "--out", _results]);
}
