using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;
using Kobo.Sync.DeviceSimulator.Tests.Gate;

namespace Kobo.Sync.DeviceSimulator.Tests.Reports;

[Trait("Category", "Fast")]
public sealed class ResultMergerTests
{
    private static readonly LoadProfile Profile = new()
    {
        Name = "merge",
        Scenarios = [new ScenarioLoad { Read = ReadKind.UserById, Transport = Transport.Grpc, Steps = [new LoadStep { Rate = 100, DurationSeconds = 10 }] }],
    };

    [Fact]
    public void MergedShardsReportThePercentilesOfAllTheirSyncsNotTheAverageOfTheirPercentiles()
    {
        // One shard saw a fast server, the other a slow one: the average of their p99s is far from
        // the p99 of all syncs together.
        var fast = Shard(seed: 1, micros: r => r.Next(1_000, 5_000), count: 9_000);
        var slow = Shard(seed: 2, micros: r => r.Next(100_000, 900_000), count: 1_000);
        var all = new LatencyHistogram();
        all.Add(fast.Stats.Latency);
        all.Add(slow.Stats.Latency);

        var merged = ResultMerger.Merge([GateRuns.RoundTrip(fast.Result), GateRuns.RoundTrip(slow.Result)]);

        var scenario = Assert.Single(merged.Scenarios);
        Assert.Equal(10_000, scenario.Syncs);
        Assert.Equal(all.ValueAtPercentile(99) / 1000.0, scenario.Latency.P99);
        Assert.Equal(all.ValueAtPercentile(50) / 1000.0, scenario.Latency.P50);
        var averaged = (fast.Result.Scenarios[0].Latency.P99 + slow.Result.Scenarios[0].Latency.P99) / 2;
        Assert.NotEqual(averaged, scenario.Latency.P99, 1);
        Assert.Equal(["1/2", "2/2"], merged.Shards);
        Assert.Equal(10_000, scenario.Timeline.Sum(t => t.Syncs));
        Assert.Equal(10_000, Assert.Single(scenario.Steps).Syncs);
    }

    [Fact]
    public void MergedShardsReportTheDispatchLagOfAllTheirDispatchesAndAddTheirSeconds()
    {
        // One shard's generator on time, the other's late on a tenth of its dispatches: the worst
        // shard's p99 (over its own 1,000 dispatches) is not the p99 of all 10,000.
        var onTime = Generator(Enumerable.Range(0, 9_000).Select(i => (i / 1_000, 1_000 + (i % 500))));
        var late = Generator(Enumerable.Range(0, 1_000).Select(i => (i / 100, i % 10 == 0 ? 80_000 : 2_000)));
        var all = new LatencyHistogram();
        all.Add(ResultBuilder.ToHistogram(onTime.Lag!));
        all.Add(ResultBuilder.ToHistogram(late.Lag!));

        var merged = ResultMerger.Merge([
            GateRuns.RoundTrip(Shard(1, r => 1_000, 100).Result with { Generator = onTime }),
            GateRuns.RoundTrip(Shard(2, r => 1_000, 100).Result with { Generator = late }),
        ]).Generator;

        Assert.Equal(TimeSpan.FromTicks(all.ValueAtPercentile(99) * 10), merged.DispatchLagP99);
        Assert.NotEqual(late.DispatchLagP99, merged.DispatchLagP99);
        Assert.Equal(TimeSpan.FromMilliseconds(80), merged.DispatchLagMax);
        Assert.Equal(10_000, merged.Lag!.Buckets.Sum(b => b[1]));
        Assert.Equal(Enumerable.Repeat(1_100L, 9).Append(100), merged.Seconds.Select(s => s.Dispatches));
        Assert.Equal(Enumerable.Repeat(10L, 10), merged.Seconds.Select(s => s.Late));
        Assert.Equal(80, merged.Seconds[0].LagMaxMs);
        Assert.False(merged.Saturated);
        Assert.Null(merged.Verdict);
    }

    /// <summary>A generator that dispatched at these (second, lag in µs).</summary>
    private static GeneratorStats Generator(IEnumerable<(int Second, int Micros)> dispatches)
    {
        var lag = new LatencyHistogram();
        var seconds = new List<GeneratorSecond>();
        foreach (var second in dispatches.GroupBy(d => d.Second))
        {
            foreach (var d in second)
            {
                lag.Record(d.Micros);
            }

            seconds.Add(new GeneratorSecond(
                second.Key, second.Count(), second.Count(d => d.Micros > 20_000), second.Max(d => d.Micros) / 1000.0, 0.2));
        }

        return new GeneratorStats(0.2, 0.3, TimeSpan.FromTicks(lag.ValueAtPercentile(99) * 10), TimeSpan.FromTicks(lag.Max * 10), 2, false)
        {
            Verdict = GeneratorVerdict.Judge(seconds),
            Lag = ResultBuilder.ToData(lag),
            Seconds = seconds,
        };
    }

    private static (ScenarioStats Stats, RunResult Result) Shard(int seed, Func<Random, int> micros, int count)
    {
        var random = new Random(seed);
        var stats = new ScenarioStats("user-by-id-grpc");
        for (var i = 0; i < count; i++)
        {
            stats.Record(i * 10 / count, TimeSpan.FromTicks(micros(random) * 10L), SyncOutcome.Ok, 1);
        }

        var generator = new GeneratorStats(0.1, 0.2, TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(2), 2, false);
        var result = ResultBuilder.Build(Profile, [$"{seed}/2"], DateTimeOffset.UnixEpoch, TimeSpan.FromSeconds(10), [(Profile.Scenarios[0], stats)], generator);
        return (stats, result);
    }
}
