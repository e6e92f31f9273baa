using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>
/// Combines the results of the shards of one run (<c>--shard i/n</c> on several processes or
/// machines) into one: counts add up, histograms merge bucket by bucket, and every percentile is
/// computed again from the merged histogram (averaging the shards' percentiles would be wrong).
/// The generator's dispatch lag is merged the same way (its CPU is the shards' mean and the worst
/// shard's peak: each is a share of its own machine), and the merged run is not proven when any
/// shard's generator was saturated; each shard's own generator is kept beside (<see cref="RunResult.ShardRuns"/>).
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
                    ? s.Steps.Select(
                        step => new LoadStep
                        {
                            Rate = step.Rate, RampTo = step.RampTo, DurationSeconds = step.ToSecond - step.FromSecond,
                        }).ToList()
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
        var generator = MergeGenerators(shards.Select(s => s.Generator).ToList());
        return ResultBuilder.Build(
            profile, shards.SelectMany(s => s.Shards).ToList(), shards.Min(s => s.Started),
            TimeSpan.FromSeconds(shards.Max(s => s.DurationSeconds)), scenarios, generator) with
        {
            ShardRuns = shards.SelectMany(ShardRuns).ToList(),
        };
    }

    /// <summary>
    /// The shards' generators as one: dispatch lag from their merged histograms (the worst shard's p99
    /// only for results written before the histogram was kept), each second's dispatches and late ones
    /// added, its latest dispatch and its CPU the worst shard's (each shard's CPU is a share of its own
    /// machine; the CPU mean is the shards' mean). Saturated when any shard's was; the verdict stays each shard's own
    /// (<see cref="RunResult.ShardRuns"/>).
    /// </summary>
    private static GeneratorStats MergeGenerators(IReadOnlyList<GeneratorStats> generators)
    {
        LatencyHistogram? lag = null;
        if (generators.All(g => g.Lag is not null))
        {
            lag = new LatencyHistogram();
            foreach (var g in generators)
            {
                lag.Add(ResultBuilder.ToHistogram(g.Lag!));
            }
        }

        var seconds = generators.SelectMany(g => g.Seconds).GroupBy(s => s.Second).OrderBy(s => s.Key)
            .Select(s => new GeneratorSecond(
                s.Key, s.Sum(x => x.Dispatches), s.Sum(x => x.Late), s.Max(x => x.LagMaxMs),
                s.Any(x => x.Cpu is not null) ? s.Max(x => x.Cpu ?? 0) : null))
            .ToList();
        return new GeneratorStats(
            generators.Average(g => g.CpuMean), generators.Max(g => g.CpuPeak),
            lag is null ? generators.Max(g => g.DispatchLagP99) : TimeSpan.FromTicks(lag.ValueAtPercentile(99) * 10),
            generators.Max(g => g.DispatchLagMax), generators.Max(g => g.Cores), generators.Any(g => g.Saturated))
        {
            Lag = lag is null ? null : ResultBuilder.ToData(lag),
            Seconds = seconds,
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
