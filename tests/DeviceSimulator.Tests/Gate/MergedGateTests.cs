using System.Text.RegularExpressions;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;

namespace Kobo.Sync.DeviceSimulator.Tests.Gate;

/// <summary>Merged shards are judged step by step from the merged histograms, and reported shard by shard.</summary>
[Trait("Category", "Fast")]
public sealed partial class MergedGateTests
{
    private static readonly ScenarioLoad Load = GateRuns.Load(Transport.Rest, (1000, 10), (2000, 10), (4000, 10), (6000, 10));

    // Shard 1 is fast throughout; shard 2's last step has 3 % slow syncs.
    private static readonly Func<int, int> Fast = _ => 0;
    private static readonly Func<int, int> LastStepSlow = second => second >= 30 ? 3 : 0;

    [Fact]
    public void MergedShardsAreJudgedStepByStepExactlyAsOneRunOfAllTheirSyncs()
    {
        var first = GateRuns.RoundTrip(GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 40, 100, Fast))], shard: "1/2"));
        var second = GateRuns.RoundTrip(GateRuns.Build([(Load, GateRuns.Stats("user-by-id-rest", 40, 100, LastStepSlow))], shard: "2/2"));
        var single = new ScenarioStats("user-by-id-rest");
        GateRuns.Record(single, 40, 100, Fast);
        GateRuns.Record(single, 40, 100, LastStepSlow);
        var one = GateRuns.Build([(Load, single)]);

        var merged = ResultMerger.Merge([first, second]);

        // 1.5 % of the merged last step is slow, 0.375 % of the merged run.
        var failed = Assert.Single(merged.Checks, c => !c.Passed);
        Assert.Equal(("user-by-id-rest step 4 (6000/s)", "p99 ms"), (failed.Subject, failed.Metric));
        Assert.True(Assert.Single(merged.Checks, c => c.Part is null && c.Metric == "p99 ms").Passed);
        Assert.Equal(
            one.Checks.Select(c => (c.Subject, c.Metric, c.Actual, c.Passed)),
            merged.Checks.Select(c => (c.Subject, c.Metric, c.Actual, c.Passed)));
        Assert.Equal(8, merged.Checks.Count(c => c.Part is not null));
    }

    [Fact]
    public void MergedShardsLongStepsAreJudgedWindowByWindow()
    {
        var load = GateRuns.Load(Transport.Grpc, (100, 40));
        var thresholds = new Thresholds { WindowSeconds = 10 };
        var first = GateRuns.RoundTrip(GateRuns.Build([(load, GateRuns.Stats("user-by-id-grpc", 40, 100, Fast))], thresholds: thresholds, shard: "1/2"));
        var second = GateRuns.RoundTrip(GateRuns.Build(
            [(load, GateRuns.Stats("user-by-id-grpc", 40, 100, s => s is >= 20 and < 30 ? 4 : 0))], thresholds: thresholds, shard: "2/2"));

        var merged = ResultMerger.Merge([first, second]);

        Assert.Equal(10, merged.Thresholds.WindowSeconds);
        var failed = Assert.Single(merged.Checks, c => !c.Passed);
        Assert.Equal("user-by-id-grpc step 1 window 3 (20-30 s)", failed.Subject);
    }

    [Fact]
    public void TheMergedReportDrawsEachShardsLatencyOverTimeAndListsEachShard()
    {
        var shards = Enumerable.Range(1, 3).Select(i => GateRuns.RoundTrip(GateRuns.Build(
            [(Load, GateRuns.Stats("user-by-id-rest", 40, 10 * i, Fast))], i == 3 ? GateRuns.Saturated : GateRuns.Calm, shard: $"{i}/3"))).ToList();

        var merged = ResultMerger.Merge(shards);
        var html = HtmlReport.Render(merged);
        var markdown = MarkdownSummary.Render(merged);

        var chart = Assert.Single(Charts().Matches(html), m => m.Groups["title"].Value.StartsWith("Latency over time per shard: user-by-id-rest", StringComparison.Ordinal)).Value;
        Assert.Equal(6, Regex.Count(chart, "<polyline")); // a p50 and a p99 line for each of the 3 shards
        Assert.Equal(3, Regex.Matches(chart, "<polyline[^>]*stroke=\"(#[0-9a-f]+)\"").Select(m => m.Groups[1].Value).Distinct().Count()); // one colour a shard
        Assert.All(["1/3", "2/3", "3/3"], shard =>
        {
            Assert.Contains($">shard {shard} p50</text>", chart);
            Assert.Contains($">shard {shard} p99</text>", chart);
        });
        Assert.Contains("| 1/3 | user-by-id-rest | 400 |", markdown);
        Assert.Contains("| 2/3 | user-by-id-rest | 800 | 50.", markdown);
        Assert.Contains("| 3/3 | user-by-id-rest | 1,200 | 50.", markdown);
        Assert.Contains("| yes |", markdown);
        Assert.DoesNotContain("Latency over time per shard", HtmlReport.Render(shards[0])); // a single shard has no per-shard view
    }

    [GeneratedRegex("<svg[^>]*aria-label=\"(?<title>[^\"]*)\".*?</svg>", RegexOptions.Singleline)]
    private static partial Regex Charts();
}
