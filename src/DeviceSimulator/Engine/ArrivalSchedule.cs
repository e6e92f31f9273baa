using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>One intended sync: when it should start (from the run's start) and its sequence number.</summary>
public readonly record struct Arrival(long Sequence, TimeSpan At, int Step);

/// <summary>
/// The open-model arrival times of a scenario, decided in advance and independent of how the server
/// answers: a slow server cannot slow the arrivals down, only make them wait. Uniform spacing gives
/// equal gaps (wrk2's constant rate); Poisson spacing gives exponential gaps (many independent
/// devices). A ramp uses the rate at the current instant.
/// </summary>
public static class ArrivalSchedule
{
    public static IEnumerable<Arrival> Of(IReadOnlyList<LoadStep> steps, ArrivalSpacing spacing, int seed)
    {
        var random = new Random(seed);
        var stepStart = 0.0;
        long sequence = 0;
        for (var s = 0; s < steps.Count; s++)
        {
            var step = steps[s];
            var from = step.Rate;
            var to = step.RampTo ?? step.Rate;
            var duration = step.DurationSeconds;

            // The expected count of arrivals by time t into the step is
            // L(t) = from * t + (to - from) * t^2 / (2 * duration). Arrival k comes when L reaches
            // k (uniform) or a running sum of exponential draws (Poisson), solved for t.
            var a = (to - from) / (2 * duration);
            var total = (from * duration) + (a * duration * duration);
            var u = spacing == ArrivalSpacing.Uniform ? 0.0 : Exponential(random);
            while (u < total)
            {
                var t = a == 0 ? u / from : (-from + Math.Sqrt((from * from) + (4 * a * u))) / (2 * a);
                if (t >= duration)
                {
                    break;
                }

                yield return new Arrival(sequence++, TimeSpan.FromSeconds(stepStart + t), s);
                u += spacing == ArrivalSpacing.Uniform ? 1.0 : Exponential(random);
            }

            stepStart += duration;
        }
    }

    private static double Exponential(Random random) => -Math.Log(1 - random.NextDouble());

    public static TimeSpan Duration(IReadOnlyList<LoadStep> steps) => TimeSpan.FromSeconds(steps.Sum(s => s.DurationSeconds));
}
