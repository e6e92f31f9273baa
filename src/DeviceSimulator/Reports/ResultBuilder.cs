using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>
/// Turns measured statistics into a <see cref="RunResult"/>, and a result's stored histograms back into statistics (for merging shards).
/// </summary>
public static class ResultBuilder
{
    public static RunResult Build(
        LoadProfile profile, IReadOnlyList<string> shards, DateTimeOffset started, TimeSpan duration,
        IReadOnlyList<(ScenarioLoad Load, ScenarioStats Stats)> scenarios, GeneratorStats generator)
    {
        var windowSeconds = SlaGate.WindowSeconds(profile.Thresholds);
        var results = scenarios.Select(s => Scenario(s.Load, s.Stats, duration, windowSeconds)).ToList();
        return new RunResult
        {
            Profile = profile.Name,
            Description = profile.Description,
            Started = started,
            DurationSeconds = duration.TotalSeconds,
            Shards = shards,
            Seed = profile.Seed,
            Devices = profile.Devices,
            Generator = generator,
            Thresholds = profile.Thresholds,
            Scenarios = results,
            Baseline = Ratios(results),
            Checks = SlaGate.Check(profile.Thresholds, results),
        };
    }

    public static ScenarioStats ToStats(ScenarioResult result)
    {
        var stats = new ScenarioStats(result.Name, result.Measure) { Live = result.Live };
        stats.Latency.Add(ToHistogram(result.Histogram));
        stats.Restore(result.Syncs, result.Failed, result.Attempts, result.Dropped, result.Changes);
        foreach (var point in result.Timeline)
        {
            stats.RestoreSecond(new TimelineSecond(point.Second) { Latency = ToHistogram(point.Histogram), Failed = point.Failed });
        }

        return stats;
    }

    private static ScenarioResult Scenario(ScenarioLoad load, ScenarioStats stats, TimeSpan duration, int windowSeconds)
    {
        var h = stats.Latency;
        return new ScenarioResult
        {
            Name = stats.Name,
            Read = load.Read,
            Transport = load.Transport,
            Measure = stats.Measure,
            Live = stats.Live,
            Syncs = stats.Syncs,
            Failed = stats.Failed,
            Attempts = stats.Attempts,
            Dropped = stats.Dropped,
            Changes = stats.Changes,
            ThroughputPerSecond = stats.Syncs / Math.Max(duration.TotalSeconds, 1e-9),
            Latency = new LatencySummary(
                h.Mean / 1000, Ms(h, 50), Ms(h, 75), Ms(h, 90), Ms(h, 95), Ms(h, 99), Ms(h, 99.9), Ms(h, 99.99), h.Max / 1000.0),
            Histogram = ToData(h),
            Steps = Steps(load, stats, windowSeconds),
            Timeline = stats.Timeline.Select(s => new TimelinePoint(
                s.Second, s.Latency.TotalCount, s.Failed, Ms(s.Latency, 50),
                Ms(s.Latency, 99), s.Latency.Max / 1000.0, ToData(s.Latency))).ToList(),
        };
    }

    /// <summary>
    /// Each step's figures, and each window's of a long step, from the histograms of the seconds
    /// inside it merged exactly: the same figures whether the run had one shard or many.
    /// </summary>
    private static List<StepResult> Steps(ScenarioLoad load, ScenarioStats stats, int windowSeconds)
    {
        var timeline = stats.Timeline;
        var steps = new List<StepResult>();
        var from = 0.0;
        for (var i = 0; i < load.Steps.Count; i++)
        {
            var step = load.Steps[i];
            var to = from + step.DurationSeconds;
            var (syncs, failed, latency) = Seconds(timeline, from, to);
            var windows = StepWindows.Split(step.DurationSeconds, windowSeconds).Select((w, n) =>
            {
                var (wSyncs, wFailed, wLatency) = Seconds(timeline, from + w.From, from + w.To);
                return new WindowResult(
                    n, from + w.From, from + w.To, wSyncs, wFailed, Ms(wLatency, 50), Ms(wLatency, 99), wLatency.Max / 1000.0);
            }).ToList();
            steps.Add(
                new StepResult(
                    i, step.Rate, step.RampTo, from, to, syncs, failed, Ms(latency, 50),
                    Ms(latency, 99), latency.Max / 1000.0) { Windows = windows });
            from = to;
        }

        return steps;
    }

    private static (long Syncs, long Failed, LatencyHistogram Latency) Seconds(
        IReadOnlyList<TimelineSecond> timeline, double from, double to)
    {
        var latency = new LatencyHistogram();
        long failed = 0;
        foreach (var second in timeline.Where(t => t.Second >= from && t.Second < to))
        {
            latency.Add(second.Latency);
            failed += second.Failed;
        }

        return (latency.TotalCount, failed, latency);
    }

    private static List<BaselineRatio> Ratios(List<ScenarioResult> results)
    {
        var ratios = new List<BaselineRatio>();
        foreach (var raw in results.Where(r => r.Transport == Transport.Postgres && r.Syncs > 0))
        {
            foreach (var service in results.Where(r => r.Read == raw.Read && r.Transport != Transport.Postgres && r.Syncs > 0))
            {
                ratios.Add(
                    new BaselineRatio(
                        raw.Read, service.Transport, service.Latency.P50, raw.Latency.P50, service.Latency.P99, raw.Latency.P99));
                if (service.Steps.Count > 1)
                {
                    foreach (var (ours, theirs) in service.Steps.Zip(raw.Steps).Where(p => p.First.Syncs > 0 && p.Second.Syncs > 0))
                    {
                        ratios.Add(new BaselineRatio(raw.Read, service.Transport, ours.P50, theirs.P50, ours.P99, theirs.P99, ours.Step));
                    }
                }
            }
        }

        return ratios;
    }

    private static double Ms(LatencyHistogram histogram, double percentile) => histogram.ValueAtPercentile(percentile) / 1000.0;

    internal static HistogramData ToData(LatencyHistogram h) =>
        new(h.TotalCount == 0 ? 0 : h.Min, h.Max, h.Sum, h.NonEmptyBuckets().Select(b => new[] { b.Index, b.Count }).ToList());

    internal static LatencyHistogram ToHistogram(HistogramData data) =>
        LatencyHistogram.FromBuckets(data.Buckets.Select(b => ((int)b[0], b[1])), data.Min, data.Max, data.Sum);
}
