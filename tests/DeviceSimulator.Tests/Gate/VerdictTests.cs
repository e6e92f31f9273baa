using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.Gate;

/// <summary>A saturated generator proves nothing: such a run is never reported as passing.</summary>
[Trait("Category", "Fast")]
public sealed class VerdictTests
{
    private static readonly ScenarioLoad Load = GateRuns.Load(Transport.Rest, (100, 10));

    [Fact]
    public void EveryThresholdMetByACalmGeneratorPasses()
    {
        var result = GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 10, 100, _ => 0))]);

        Assert.Equal((RunOutcome.Pass, 0), (result.Outcome, SlaGate.ExitCode(result)));
        Assert.StartsWith("PASS steps:", result.Verdict);
        Assert.Equal("pass", Field(result, "verdict"));
    }

    [Fact]
    public void EveryThresholdMetByASaturatedGeneratorIsNotProvenWithExitCodeFour()
    {
        var result = GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 10, 100, _ => 0))], GateRuns.Saturated);

        Assert.True(result.Passed);
        Assert.Equal(RunOutcome.NotProven, result.Outcome);
        Assert.Equal(SlaGate.NotProvenExitCode, SlaGate.ExitCode(result));
        Assert.Equal(4, SlaGate.NotProvenExitCode);
        Assert.StartsWith("NOT PROVEN steps: the generator was saturated (behind in 12 of 30 seconds (most of the second's dispatches late by over 20 ms; 400 of 5,000 dispatches late)", result.Verdict);
        Assert.Contains("CPU over 85% of the cores in 25 of 30 seconds", result.Verdict);
        Assert.Equal("not-proven", Field(result, "verdict"));
        Assert.StartsWith("# steps: NOT PROVEN", MarkdownSummary.Render(result));
        Assert.Contains("Generator saturated: after the first 1 s, behind in 12 of 30 seconds", MarkdownSummary.Render(result));
        Assert.Contains("class=\"not-proven\">NOT PROVEN steps", HtmlReport.Render(result));
        Assert.Contains("class=\"generator-verdict\">Generator saturated: after the first 1 s, behind in 12 of 30 seconds", HtmlReport.Render(result));
    }

    [Fact]
    public void AFailedThresholdFailsTheRunWhateverTheGenerator()
    {
        var slow = GateRuns.Stats("user-by-id-rest", 10, 100, _ => 50);

        foreach (var generator in new[] { GateRuns.Saturated, GateRuns.Calm })
        {
            var result = GateRuns.Build([(Load, slow)], generator);

            Assert.Equal(RunOutcome.Fail, result.Outcome);
            Assert.Equal(SlaGate.FailedExitCode, SlaGate.ExitCode(result));
            Assert.StartsWith("FAIL steps: user-by-id-rest p99 ms 250", result.Verdict);
            Assert.Equal("fail", Field(result, "verdict"));
        }
    }

    [Fact]
    public void MergedShardsAreNotProvenWhenOneShardsGeneratorWasSaturated()
    {
        var calm = GateRuns.RoundTrip(GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 10, 50, _ => 0))], GateRuns.Calm, shard: "1/2"));
        var saturated = GateRuns.RoundTrip(GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 10, 50, _ => 0))], GateRuns.Saturated, shard: "2/2"));

        var merged = ResultMerger.Merge([calm, saturated]);

        Assert.Equal(RunOutcome.NotProven, merged.Outcome);
        Assert.Equal(SlaGate.NotProvenExitCode, SlaGate.ExitCode(merged));
        Assert.StartsWith("NOT PROVEN steps: the generator was saturated (shard 2/2: behind in 12 of 30 seconds", merged.Verdict);
        Assert.DoesNotContain("shard 1/2", merged.Verdict);
        Assert.Contains("Shard 2/2's generator saturated: after the first 1 s, behind in 12 of 30 seconds", MarkdownSummary.Render(merged));
        Assert.Equal(RunOutcome.Pass, ResultMerger.Merge([calm, calm]).Outcome);
    }

    private static string? Field(RunResult result, string name) =>
        JsonDocument.Parse(ResultJson.Serialize(result)).RootElement.GetProperty(name).GetString();
}
