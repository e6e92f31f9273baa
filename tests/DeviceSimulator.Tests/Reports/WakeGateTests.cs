using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;
using Kobo.Sync.DeviceSimulator.Tests.Gate;

namespace Kobo.Sync.DeviceSimulator.Tests.Reports;

/// <summary>Live pull's wake statistics in the gate, the reports and a merge of shards.</summary>
[Trait("Category", "Fast")]
public sealed class WakeGateTests
{
    private static readonly ScenarioLoad Load = new() { Read = ReadKind.Live, Transport = Transport.Rest, Steps = [new LoadStep { Rate = 10, DurationSeconds = 2 }] };

    private static readonly GeneratorStats Generator = new(0.1, 0.2, TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(2), 2, false);

    [Theory]
    [InlineData(40, 0, 0, true)]
    [InlineData(150, 0, 0, false)] // wake p99 over 100 ms
    [InlineData(40, 1, 0, false)]  // one delivery missed
    [InlineData(40, 0, 1, false)]  // one change reached another user's device
    public void TheGateHoldsTheWakeP99AndEveryDelivery(int wakeMs, int missed, int misdelivered, bool passes)
    {
        var result = Build(Wake(wakeMs, deliveries: 20, missed, misdelivered, shard: 1));

        var wake = Assert.Single(result.Scenarios, s => s.Measure == Measure.Wake);
        Assert.Equal(passes, result.Passed);
        Assert.Equal(passes, result.Checks.Where(c => c.Scenario == wake.Name).All(c => c.Passed));
        Assert.Contains(result.Checks, c => c.Scenario == wake.Name && c.Metric == "wake p99 ms" && c.Limit == 100);
        Assert.DoesNotContain(result.Checks, c => c.Scenario == wake.Name && c.Metric == "p99 ms"); // the sync limit is not the wake's
    }

    [Fact]
    public void ShardsWakeLatenciesAndDeliveriesAddUp()
    {
        var merged = ResultMerger.Merge([GateRuns.RoundTrip(Build(Wake(10, 20, 0, 0, shard: 1))), GateRuns.RoundTrip(Build(Wake(300, 5, 2, 0, shard: 2)))]);

        var wake = Assert.Single(merged.Scenarios, s => s.Measure == Measure.Wake);
        Assert.Equal(25, wake.Syncs);
        Assert.Equal(300, wake.Latency.Max, 0);
        var live = Assert.IsType<LiveCounts>(wake.Live);
        Assert.Equal((8, 27, 25, 2), (live.Waiters, live.Expected, live.Delivered, live.Missed));
        Assert.Equal(60, live.WindowSeconds);
        Assert.Contains(merged.Checks, c => c.Metric == "missed deliveries" && c.Actual == 2 && !c.Passed);
        Assert.Contains("| live-rest/wake | 8 | 27 | 25 | 2 |", MarkdownSummary.Render(merged));
        Assert.Contains("<h2>Live pull</h2>", HtmlReport.Render(merged));
    }

    private static ScenarioStats Wake(int milliseconds, int deliveries, int missed, int misdelivered, int shard)
    {
        var stats = new ScenarioStats("live-rest/wake", Measure.Wake);
        for (var i = 0; i < deliveries; i++)
        {
            stats.Record(i % 2, TimeSpan.FromMilliseconds(milliseconds), SyncOutcome.Ok, 1);
        }

        stats.Live = new LiveCounts
        {
            Waiters = 4, Expected = deliveries + missed, Delivered = deliveries, Misdelivered = misdelivered,
            Requests = 10 * shard, WindowSeconds = 30 * shard,
        };
        return stats;
    }

    private static RunResult Build(ScenarioStats wake)
    {
        var pushes = new ScenarioStats("live-rest");
        pushes.Record(0, TimeSpan.FromMilliseconds(5), SyncOutcome.Ok, 1);
        var profile = new LoadProfile { Name = "live", Scenarios = [Load] };
        return ResultBuilder.Build(profile, ["1/1"], DateTimeOffset.UnixEpoch, TimeSpan.FromSeconds(2), [(Load, pushes), (Load, wake)], Generator);
    }
}
