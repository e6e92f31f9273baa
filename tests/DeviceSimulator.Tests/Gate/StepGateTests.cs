using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;

namespace Kobo.Sync.DeviceSimulator.Tests.Gate;

/// <summary>The gate judges every step, and every window of a long step, besides the whole run.</summary>
[Trait("Category", "Fast")]
public sealed class StepGateTests
{
    [Fact]
    public void ALastStepOverTheP99LimitFailsTheRunWhileTheWholeRunIsUnderIt()
    {
        // Steps of 10 s at 1,000, 2,000, 4,000 and 6,000/s (100 syncs recorded a second): 2 % of the
        // last step's syncs take 250 ms, 0.5 % of the run's.
        var load = GateRuns.Load(Transport.Rest, (1000, 10), (2000, 10), (4000, 10), (6000, 10));
        var stats = GateRuns.Stats("user-by-id-rest", 40, 100, second => second >= 30 ? 2 : 0);

        var result = GateRuns.Build([(load, stats)]);

        Assert.False(result.Passed);
        var whole = Assert.Single(result.Checks, c => c.Part is null && c.Metric == "p99 ms");
        Assert.True(whole.Passed);
        Assert.True(result.Scenarios[0].Latency.P99 < 200);
        var failed = Assert.Single(result.Checks, c => !c.Passed);
        Assert.Equal("user-by-id-rest step 4 (6000/s)", failed.Subject);
        Assert.Equal("p99 ms", failed.Metric);
        Assert.Equal(250, failed.Actual, 0);
        Assert.Equal(8, result.Checks.Count(c => c.Part is not null)); // p99 and failed syncs of each of the 4 steps
        Assert.StartsWith("FAIL steps: user-by-id-rest step 4 (6000/s) p99 ms 250", result.Verdict);
        Assert.Contains("| user-by-id-rest step 4 (6000/s) p99 ms | 200 | 250", MarkdownSummary.Render(result));
    }

    [Fact]
    public void AStepOverTheFailedSyncLimitFailsNamingTheStep()
    {
        var load = GateRuns.Load(Transport.Grpc, (100, 10), (200, 10));
        var stats = GateRuns.Stats("user-by-id-grpc", 20, 100, _ => 0, failed: second => second == 3 ? 1 : 0);

        var result = GateRuns.Build([(load, stats)]);

        // 1 failed of 2,000 is 0.05 % over the run, 0.1 % of the first step: at the limit, which passes.
        Assert.True(result.Passed, result.Verdict);

        stats = GateRuns.Stats("user-by-id-grpc", 20, 100, _ => 0, failed: second => second is 3 or 4 ? 1 : 0);
        result = GateRuns.Build([(load, stats)]);

        var failed = Assert.Single(result.Checks, c => !c.Passed);
        Assert.Equal(("user-by-id-grpc step 1 (100/s)", "failed syncs %", 0.2), (failed.Subject, failed.Metric, failed.Actual));
    }

    [Fact]
    public void TheRawPostgresBaselineIsNotJudgedStepByStep()
    {
        var load = GateRuns.Load(Transport.Postgres, (1000, 10), (6000, 10));
        var stats = GateRuns.Stats("user-by-id-postgres", 20, 100, second => second >= 10 ? 50 : 0);

        var result = GateRuns.Build([(load, stats)]);

        Assert.True(result.Passed, result.Verdict);
        Assert.DoesNotContain(result.Checks, c => c.Part is not null);
    }

    [Fact]
    public void ALongStepsThirdWindowOverTheLimitFailsNamingTheWindow()
    {
        // One step of 50 s judged by windows of 10 s: its third window (20-30 s) has 5 % slow syncs.
        var load = GateRuns.Load(Transport.Rest, (500, 50));
        var stats = GateRuns.Stats("user-by-id-rest", 50, 100, second => second is >= 20 and < 30 ? 5 : 0);

        var result = GateRuns.Build([(load, stats)], thresholds: new Thresholds { WindowSeconds = 10 });

        var failed = Assert.Single(result.Checks, c => !c.Passed);
        Assert.Equal("user-by-id-rest step 1 window 3 (20-30 s)", failed.Subject);
        Assert.Equal("p99 ms", failed.Metric);
        Assert.True(Assert.Single(result.Checks, c => c.Part is null && c.Metric == "p99 ms").Passed);
        Assert.Equal(10, result.Checks.Count(c => c.Part is not null)); // 5 windows, 2 checks each
        Assert.Equal(5, Assert.Single(result.Scenarios[0].Steps).Windows.Count);
    }

    [Fact]
    public void AnHourLongStepIsJudgedByTenMinuteWindowsByDefault()
    {
        // One hour at 10 syncs a second; 90 slow syncs early in its third ten minutes: 1.5 % of that
        // window, 0.25 % of the hour.
        var load = GateRuns.Load(Transport.Rest, (10, 3600));
        var stats = GateRuns.Stats("user-by-id-rest", 3600, 10, second => second is >= 1200 and < 1290 ? 1 : 0);

        var result = GateRuns.Build([(load, stats)]);

        Assert.Equal(SlaGate.DefaultWindowSeconds, SlaGate.WindowSeconds(result.Thresholds));
        var failed = Assert.Single(result.Checks, c => !c.Passed);
        Assert.Equal("user-by-id-rest step 1 window 3 (20-30 min)", failed.Subject);
        Assert.Equal(250, failed.Actual, 0);
        Assert.True(result.Scenarios[0].Latency.P99 < 200);
        Assert.Equal(12, result.Checks.Count(c => c.Part is not null)); // 6 windows, 2 checks each
        Assert.Contains("user-by-id-rest step 1 window 3 (20-30 min) p99 ms 250", result.Verdict);
    }

    [Theory]
    [InlineData(600, 600, new double[] { })]                  // one window: the step's own check covers it
    [InlineData(1230, 600, new double[] { 0, 600, 1230 })]    // a last 30 s joins the window before it
    [InlineData(1290, 600, new double[] { 0, 600, 1200, 1290 })] // a last 90 s is judged on its own
    [InlineData(630, 600, new double[] { })]                  // 600 + 30 s folded: one window again
    [InlineData(50, 10, new double[] { 0, 10, 20, 30, 40, 50 })]
    public void AStepIsCutIntoWindowsWithAShortLastOneFolded(double stepSeconds, int windowSeconds, double[] bounds)
    {
        var windows = StepWindows.Split(stepSeconds, windowSeconds);

        Assert.Equal(bounds, windows.Count == 0 ? [] : windows.Select(w => w.From).Append(windows[^1].To).ToArray());
        Assert.All(windows.Zip(windows.Skip(1)), pair => Assert.Equal(pair.First.To, pair.Second.From));
    }
}
