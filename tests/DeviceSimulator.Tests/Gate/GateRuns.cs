using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.Gate;

/// <summary>Runs built from per-second histograms recorded directly, for the gate's tests.</summary>
internal static class GateRuns
{
    public static readonly GeneratorStats Calm = new(0.2, 0.4, TimeSpan.FromMilliseconds(2), TimeSpan.FromMilliseconds(5), 2, Saturated: false);

    public static readonly GeneratorStats Saturated = new(0.8, 0.97, TimeSpan.FromMilliseconds(35), TimeSpan.FromMilliseconds(80), 2, Saturated: true)
    {
        Verdict = new GeneratorVerdict(JudgedDispatches: 5_000, LateDispatches: 400, JudgedSeconds: 30, BehindSeconds: 12, CpuSeconds: 30, CpuSecondsOver: 25),
    };

    public static ScenarioLoad Load(Transport transport, params (double Rate, double Seconds)[] steps) => new()
    {
        Read = ReadKind.UserById,
        Transport = transport,
        Steps = steps.Select(s => new LoadStep { Rate = s.Rate, DurationSeconds = s.Seconds }).ToList(),
    };

    /// <summary>Each second of the run: <paramref name="perSecond"/> syncs of 50 ms, of which <paramref name="slow"/>(second) take 250 ms.</summary>
    public static ScenarioStats Stats(string name, int seconds, int perSecond, Func<int, int> slow, Func<int, int>? failed = null) =>
        Record(new ScenarioStats(name), seconds, perSecond, slow, failed);

    public static ScenarioStats Record(ScenarioStats stats, int seconds, int perSecond, Func<int, int> slow, Func<int, int>? failed = null)
    {
        for (var second = 0; second < seconds; second++)
        {
            var slowOnes = slow(second);
            var failedOnes = failed?.Invoke(second) ?? 0;
            for (var i = 0; i < perSecond; i++)
            {
                stats.Record(second, TimeSpan.FromMilliseconds(i < slowOnes ? 250 : 50), i < failedOnes ? SyncOutcome.Failed : SyncOutcome.Ok, 1);
            }
        }

        return stats;
    }

    public static RunResult Build(
        IReadOnlyList<(ScenarioLoad Load, ScenarioStats Stats)> scenarios, GeneratorStats? generator = null, Thresholds? thresholds = null, string shard = "1/1")
    {
        var profile = new LoadProfile { Name = "steps", Scenarios = scenarios.Select(s => s.Load).ToList(), Thresholds = thresholds ?? new Thresholds() };
        var seconds = scenarios.Max(s => s.Load.Steps.Sum(step => step.DurationSeconds));
        return ResultBuilder.Build(profile, [shard], DateTimeOffset.UnixEpoch, TimeSpan.FromSeconds(seconds), scenarios, generator ?? Calm);
    }

    public static RunResult RoundTrip(RunResult result)
    {
        var path = Path.Combine(Path.GetTempPath(), $"kobo-sim-result-{Guid.NewGuid():N}.json");
        File.WriteAllText(path, ResultJson.Serialize(result));
        try
        {
            return ResultJson.Read(path);
        }
        finally
        {
            File.Delete(path);
        }
    }
}
