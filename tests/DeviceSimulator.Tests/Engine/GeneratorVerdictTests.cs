using Kobo.Sync.DeviceSimulator.Engine;

namespace Kobo.Sync.DeviceSimulator.Tests.Engine;

/// <summary>
/// The generator is saturated only when it really fell behind: a share of its dispatches late, and enough
/// of them, or its CPU over the limit in enough seconds; never on a few late first calls or one busy second.
/// </summary>
public sealed class GeneratorVerdictTests
{
    [Fact]
    public void ASmokeRunsFewLateDispatchesOnAQuietBoxDecideNothing()
    {
        // 10 syncs a second for 3 s after the warm-up: 30 dispatches, 3 of them late (the p99 of 30 is the worst).
        var verdict = new GeneratorVerdict(JudgedDispatches: 30, LateDispatches: 3, CpuSeconds: 3, CpuSecondsOver: 0);

        Assert.False(verdict.Saturated);
    }

    [Fact]
    public void OneBusySecondDecidesNothing() =>
        Assert.False(new GeneratorVerdict(10_000, 0, CpuSeconds: 60, CpuSecondsOver: 1).Saturated);

    [Fact]
    public void AGeneratorLateOnMoreThanOnePercentOfManyDispatchesIsSaturated()
    {
        var verdict = new GeneratorVerdict(JudgedDispatches: 10_000, LateDispatches: 250, CpuSeconds: 60, CpuSecondsOver: 0);

        Assert.True(verdict.Saturated);
        Assert.Equal("250 of 10,000 dispatches late by over 20 ms", verdict.Describe());
    }

    [Fact]
    public void LateDispatchesUnderOnePercentAreTheServersNoise() =>
        Assert.False(new GeneratorVerdict(100_000, 900, 60, 0).Saturated);

    [Fact]
    public void AGeneratorStarvedOfCpuIsSaturated()
    {
        var verdict = new GeneratorVerdict(JudgedDispatches: 1_000, LateDispatches: 0, CpuSeconds: 20, CpuSecondsOver: 12);

        Assert.True(verdict.Saturated);
        Assert.Equal("CPU over 85% of the cores in 12 of 20 seconds", verdict.Describe());
    }

    [Fact]
    public void AQuietMonitorGivesAProvenVerdictAndABusyOneDoesNot()
    {
        using (var quiet = new GeneratorMonitor())
        {
            for (var i = 0; i < 30; i++)
            {
                quiet.RecordLag(TimeSpan.FromMilliseconds(i < 3 ? 27 : 1));
            }

            Assert.False(quiet.Stop().Saturated);
        }

        var stats = new GeneratorStats(0.9, 0.95, TimeSpan.FromMilliseconds(40), TimeSpan.FromMilliseconds(90), 2, true)
        {
            Verdict = new GeneratorVerdict(5_000, 400, 30, 25),
        };
        Assert.Equal("400 of 5,000 dispatches late by over 20 ms; CPU over 85% of the cores in 25 of 30 seconds", stats.SaturationReason);
    }
}
