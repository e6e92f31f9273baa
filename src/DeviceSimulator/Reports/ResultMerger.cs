using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>
/// Combines the results of the shards of one run (<c>--shard i/n</c> on several processes or
/// machines) into one: counts add up, histograms merge bucket by bucket, and every percentile is
/// computed again from the merged histogram (averaging the shards' percentiles would be wrong).
/// The generator figures are the worst shard's, and the merged run is not proven when any shard's
/// generator was saturated; each shard's own generator is kept beside (<see cref="RunResult.ShardRuns"/>).
/// </summary>
public static class ResultMerger
{
    public static RunResult Merge(IReadOnlyList<RunResult> shards)
    {
        if (shards.Count == 0)
        {
            throw new ArgumentException("Nothing to merge.", nameof(shards));
        }

        var first = shards[0];
        foreach (var other in shards.Skip(1))
        {
            var names = other.Scenarios.Select(s => s.Name);
            if (other.Profile != first.Profile || !names.SequenceEqual(first.Scenarios.Select(s => s.Name)))
            {
                throw new FormatException($"Shards of different runs: {first.Profile} and {other.Profile}, or different scenarios.");
            }
        }

        var scenarios = first.Scenarios.Select((s, i) =>
        {
            var merged = ResultBuilder.ToStats(s);
            foreach (var other in shards.Skip(1))
            {
                merged.Add(ResultBuilder.ToStats(other.Scenarios[i]));
            }

            var load = new ScenarioLoad
            {
                Read = s.Read,
                Transport = s.Transport,
                Steps = s.Steps.Count > 0
                    ? s.Steps.Select(step => new LoadStep { Rate = step.Rate, RampTo = step.RampTo, DurationSeconds = step.ToSecond - step.FromSecond }).ToList()
                    : [new LoadStep { Rate = 0, DurationSeconds = first.DurationSeconds }],
            };
            return (load, merged);
        }).ToList();

        var profile = new LoadProfile
        {
            Name = first.Profile,
            Description = first.Description,
            Seed = first.Seed,
            Devices = first.Devices,
            Thresholds = first.Thresholds,
            Scenarios = scenarios.Select(s => s.load).ToList(),
        };
        var generator = new GeneratorStats(
            shards.Average(s => s.Generator.CpuMean), shards.Max(s => s.Generator.CpuPeak),
            shards.Max(s => s.Generator.DispatchLagP99), shards.Max(s => s.Generator.DispatchLagMax),
            shards.Max(s => s.Generator.Cores), shards.Any(s => s.Generator.Saturated));
        return ResultBuilder.Build(
            profile, shards.SelectMany(s => s.Shards).ToList(), shards.Min(s => s.Started),
            TimeSpan.FromSeconds(shards.Max(s => s.DurationSeconds)), scenarios, generator) with
        {
            ShardRuns = shards.SelectMany(ShardRuns).ToList(),
        };
    }

    /// <summary>A shard's entry in the merged run; a merged run merged again keeps its shards'.</summary>
    private static IEnumerable<ShardRun> ShardRuns(RunResult shard) =>
        shard.ShardRuns.Count > 0 ? shard.ShardRuns :
        [
            new ShardRun(string.Join(", ", shard.Shards), shard.Generator)
            {
                Scenarios = shard.Scenarios.Select(s => new ShardScenario(
                    s.Name, s.Syncs, s.Latency.P99, s.Timeline.Select(t => new ShardSecond(t.Second, t.P50, t.P99)).ToList())).ToList(),
            },
        ];
}
