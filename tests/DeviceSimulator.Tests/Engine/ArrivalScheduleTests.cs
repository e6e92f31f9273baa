using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Tests.Engine;

[Trait("Category", "Fast")]
public sealed class ArrivalScheduleTests
{
    [Fact]
    public void AUniformStepSendsItsRateEverySecondAtEqualGaps()
    {
        var arrivals = ArrivalSchedule.Of([new LoadStep { Rate = 50, DurationSeconds = 4 }], ArrivalSpacing.Uniform, seed: 1).ToList();

        Assert.Equal(200, arrivals.Count);
        Assert.All(arrivals.Zip(arrivals.Skip(1)), pair => Assert.Equal(20, (pair.Second.At - pair.First.At).TotalMilliseconds, 3));
        Assert.Equal(Enumerable.Range(0, 200).Select(i => (long)i), arrivals.Select(a => a.Sequence));
    }

    [Fact]
    public void APoissonStepAveragesItsRateAndIsTheSameForTheSameSeed()
    {
        LoadStep[] steps = [new LoadStep { Rate = 1_000, DurationSeconds = 10 }];

        var first = ArrivalSchedule.Of(steps, ArrivalSpacing.Poisson, seed: 9).ToList();
        var again = ArrivalSchedule.Of(steps, ArrivalSpacing.Poisson, seed: 9).ToList();
        var other = ArrivalSchedule.Of(steps, ArrivalSpacing.Poisson, seed: 10).ToList();

        Assert.InRange(first.Count, 9_700, 10_300); // 10,000 expected, sd 100
        Assert.Equal(first, again);
        Assert.NotEqual(first.Select(a => a.At), other.Select(a => a.At));
        var gaps = first.Zip(first.Skip(1)).Select(p => (p.Second.At - p.First.At).TotalMilliseconds).ToList();
        Assert.True(gaps.Count(g => g > 2) > gaps.Count / 10, "exponential gaps: some far above the mean");
    }

    [Fact]
    public void ARampFromZeroSendsHalfOfItsTopRateOnAverage()
    {
        var arrivals = ArrivalSchedule.Of([new LoadStep { Rate = 0, RampTo = 100, DurationSeconds = 10 }], ArrivalSpacing.Uniform, seed: 1).ToList();

        Assert.InRange(arrivals.Count, 480, 520);
        Assert.True(arrivals.Count(a => a.At < TimeSpan.FromSeconds(5)) < arrivals.Count / 3, "fewer arrivals in the ramp's first half");
    }

    [Fact]
    public void StepsFollowEachOther()
    {
        var arrivals = ArrivalSchedule.Of(
            [new LoadStep { Rate = 10, DurationSeconds = 2 }, new LoadStep { Rate = 100, DurationSeconds = 1 }], ArrivalSpacing.Uniform, seed: 1).ToList();

        Assert.InRange(arrivals.Count(a => a.Step == 0), 19, 20);
        Assert.InRange(arrivals.Count(a => a.Step == 1), 99, 100);
        Assert.All(arrivals.Where(a => a.Step == 1), a => Assert.True(a.At >= TimeSpan.FromSeconds(2)));
    }
}
