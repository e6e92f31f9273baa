using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.Engine;

/// <summary>
/// The generator is saturated only when it really fell behind: most of its dispatches late, second
/// after second, over enough dispatches, after its warm-up; or its process over the CPU limit in enough
/// seconds. Never on its first calls, a percentile of a few dozen dispatches, a busy box's one stalled
/// second, or jitter that leaves most dispatches on time.
/// </summary>
[Trait("Category", "Fast")]
public sealed class GeneratorVerdictTests
{
    [Fact]
    public void TheSmokeRunsLateFirstCallsDecideNothing()
    {
        // 9 scenarios at 10 syncs/s for 3 s: the JIT's first calls make the whole first second late
        // (its p99 is 27 ms), then a few stragglers.
        var verdict = GeneratorVerdict.Judge([Second(0, 90, 90, cpu: 0.6), Second(1, 90, 3), Second(2, 90, 2)]);

        Assert.False(verdict.Saturated);
        Assert.Equal((180, 5, 2, 0), (verdict.JudgedDispatches, verdict.LateDispatches, verdict.JudgedSeconds, verdict.BehindSeconds));
        Assert.Equal(
            "after the first 1 s, behind in 0 of 2 seconds (most of the second's dispatches late by over 20 ms; 5 of 180 dispatches late); CPU over 85% of the cores in 0 of 2 seconds",
            verdict.Summary());
    }

    [Fact]
    public void LateDispatchesOverTooFewSamplesDecideNothing()
    {
        // Every second behind, but 30 dispatches in all: nothing to judge a generator on.
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 4).Select(s => Second(s, 10, 8)));

        Assert.Equal((3, 3), (verdict.JudgedSeconds, verdict.BehindSeconds));
        Assert.False(verdict.Saturated);
    }

    [Fact]
    public void ABusyBoxsStalledSecondDecidesNothing()
    {
        // A one-second stall straddles two seconds of the run: both behind, the rest on time.
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 4).Select(s => Second(s, 90, s is 1 or 2 ? 90 : 0)));

        Assert.Equal(2, verdict.BehindSeconds);
        Assert.False(verdict.Saturated);
    }

    [Fact]
    public void JitterThatLeavesMostDispatchesOnTimeIsNotFallingBehind()
    {
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 60).Select(s => Second(s, 1_000, 300)));

        Assert.Equal((59_000, 17_700, 0), (verdict.JudgedDispatches, verdict.LateDispatches, verdict.BehindSeconds));
        Assert.False(verdict.Saturated);
    }

    [Fact]
    public void AFewBehindSecondsInALongRunAreTheBoxNotTheGenerator()
    {
        // 3 of 59 judged seconds behind: a tenth or less is not sustained.
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 60).Select(s => Second(s, 100, s % 20 == 5 ? 100 : 0)));

        Assert.Equal(3, verdict.BehindSeconds);
        Assert.False(verdict.Saturated);
    }

    [Fact]
    public void SustainedLagOverEnoughDispatchesIsSaturated()
    {
        // Falling behind from the second second on: every dispatch later than the last.
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 6).Select(s => Second(s, 60, s == 0 ? 0 : 60)));

        Assert.True(verdict.LateDispatching);
        Assert.True(verdict.Saturated);
        Assert.False(verdict.CpuStarved);
        Assert.Equal("behind in 5 of 5 seconds (most of the second's dispatches late by over 20 ms; 300 of 300 dispatches late)", verdict.Describe());
    }

    [Fact]
    public void AGeneratorOverTheCpuLimitInEnoughSecondsIsSaturated()
    {
        var verdict = GeneratorVerdict.Judge(Enumerable.Range(0, 21).Select(s => Second(s, 100, 0, cpu: s <= 12 ? 0.95 : 0.5)));

        Assert.True(verdict.CpuStarved);
        Assert.False(verdict.LateDispatching);
        Assert.Equal("CPU over 85% of the cores in 12 of 20 seconds", verdict.Describe());
    }

    [Fact]
    public void CpuInTheWarmUpOrInOneBusySecondDecidesNothing()
    {
        Assert.False(GeneratorVerdict.Judge([Second(0, 90, 0, cpu: 1.0), Second(1, 90, 0, cpu: 0.9), Second(2, 90, 0, cpu: 0.9)]).Saturated);
        Assert.False(GeneratorVerdict.Judge(Enumerable.Range(0, 60).Select(s => Second(s, 100, 0, cpu: s == 30 ? 1.0 : 0.2))).Saturated);
    }

    [Fact]
    public void TheMonitorCountsEachDispatchInTheSecondItLeftAndLeavesTheWarmUpOut()
    {
        using var monitor = new GeneratorMonitor();
        for (var i = 0; i < 90; i++)
        {
            // The first second entirely late (first calls), then on time.
            monitor.RecordLag(TimeSpan.FromMilliseconds(i * 1000 / 90), TimeSpan.FromMilliseconds(27));
            monitor.RecordLag(TimeSpan.FromMilliseconds(1000 + (i * 2000 / 90)), TimeSpan.FromMilliseconds(i == 0 ? 25 : 1));
        }

        var stats = monitor.Stop();

        Assert.Equal([90L, 45, 45], stats.Seconds.Take(3).Select(s => s.Dispatches));
        Assert.Equal([90L, 1, 0], stats.Seconds.Take(3).Select(s => s.Late));
        Assert.Equal(27, stats.Seconds[0].LagMaxMs, 1);
        Assert.Equal(180, stats.Lag!.Buckets.Sum(b => b[1]));
        Assert.False(stats.Saturated);
        Assert.Equal((90, 1, 0), (stats.Verdict!.JudgedDispatches, stats.Verdict.LateDispatches, stats.Verdict.BehindSeconds));
    }

    [Fact]
    public void TheMonitorFindsAGeneratorThatKeptFallingBehind()
    {
        using var monitor = new GeneratorMonitor();
        for (var i = 0; i < 300; i++)
        {
            // 60 syncs a second meant, dispatched at 40 a second: each later than the one before.
            var intended = TimeSpan.FromSeconds(i / 60.0);
            var sent = TimeSpan.FromSeconds(i / 40.0);
            monitor.RecordLag(sent, sent - intended);
        }

        var stats = monitor.Stop();

        Assert.True(stats.Saturated);
        Assert.Equal(8, stats.Seconds.Count(s => s.Dispatches > 0));
        Assert.StartsWith("behind in 7 of 7 seconds", stats.SaturationReason);
    }

    private static GeneratorSecond Second(int second, long dispatches, long late, double? cpu = 0.2) =>
        new(second, dispatches, late, late > 0 ? 30 : 1, cpu);
}
