using System.Text.Json.Serialization;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Results;

/// <summary>
/// The machine-readable result of a run (<c>result.json</c>): what ran, the per-scenario statistics
/// with their full histograms (so shards merge exactly), the baseline ratios, the threshold checks
/// and the verdict.
/// </summary>
public sealed record RunResult
{
    public required string Profile { get; init; }

    public string Description { get; init; } = string.Empty;

    public required DateTimeOffset Started { get; init; }

    public required double DurationSeconds { get; init; }

    public required IReadOnlyList<string> Shards { get; init; }

    public required int Seed { get; init; }

    public required long Devices { get; init; }

    public required GeneratorStats Generator { get; init; }

    public required Thresholds Thresholds { get; init; }

    public required IReadOnlyList<ScenarioResult> Scenarios { get; init; }

    public required IReadOnlyList<BaselineRatio> Baseline { get; init; }

    public required IReadOnlyList<ThresholdCheck> Checks { get; init; }

    /// <summary>Merged shards: each shard's generator (and figures); empty for a single process's run.</summary>
    public IReadOnlyList<ShardRun> ShardRuns { get; init; } = [];

    /// <summary>Every threshold met (whatever the generator; see <see cref="Outcome"/>).</summary>
    public bool Passed => Checks.All(c => c.Passed);

    /// <summary>
    /// The verdict: a failed threshold fails the run whatever the generator; every threshold met by a
    /// saturated generator (any shard's) proves nothing, since its own delay is in the latencies.
    /// </summary>
    [JsonPropertyName("verdict")]
    public RunOutcome Outcome => !Passed ? RunOutcome.Fail : Generator.Saturated ? RunOutcome.NotProven : RunOutcome.Pass;

    /// <summary>The one-line verdict printed on the console.</summary>
    [JsonPropertyName("verdictLine")]
    public string Verdict => Outcome switch
    {
        RunOutcome.Pass => $"PASS {Profile}: {Scenarios.Sum(s => s.Syncs):N0} syncs, every threshold met ({Checks.Count} checks)",
        RunOutcome.NotProven => $"NOT PROVEN {Profile}: the generator was saturated ({Saturation()}); " +
            $"every threshold met ({Checks.Count} checks) but the latencies include the generator's own delay: " +
            $"use more shards or a bigger load machine",
        _ => $"FAIL {Profile}: {string.Join("; ", Checks.Where(c => !c.Passed).Select(c => c.Describe()))}",
    };

    /// <summary>The verdict's word, as the reports' titles show it.</summary>
    [JsonIgnore]
    public string OutcomeWord => Outcome switch
    {
        RunOutcome.Pass => "PASS",
        RunOutcome.NotProven => "NOT PROVEN",
        _ => "FAIL",
    };

    private string? Saturation()
    {
        var shards = ShardRuns.Where(s => s.Generator.Saturated).Select(s => $"shard {s.Shard}: {s.Generator.SaturationReason}").ToList();
        return shards.Count > 0 ? string.Join("; ", shards) : Generator.SaturationReason;
    }
}

/// <summary>What a run proved: <c>pass</c>, <c>fail</c> or <c>not-proven</c> in <c>result.json</c>.</summary>
public enum RunOutcome
{
    Pass,
    Fail,

    /// <summary>Every threshold met, by a saturated generator.</summary>
    NotProven,
}

/// <summary>One shard of a merged run: which it was, its generator, and its own figures per scenario (for the per-shard charts).</summary>
public sealed record ShardRun(string Shard, GeneratorStats Generator)
{
    public IReadOnlyList<ShardScenario> Scenarios { get; init; } = [];
}

/// <summary>A scenario as one shard saw it: its syncs, its p99, and its p50 and p99 each second (ms).</summary>
public sealed record ShardScenario(string Name, long Syncs, double P99, IReadOnlyList<ShardSecond> Timeline);

public sealed record ShardSecond(int Second, double P50, double P99);

public sealed record ScenarioResult
{
    public required string Name { get; init; }

    public required ReadKind Read { get; init; }

    public required Transport Transport { get; init; }

    /// <summary>
    /// What the latencies measure: syncs from their intended start, or live pull's wake (push acknowledged to change held).
    /// </summary>
    public Measure Measure { get; init; } = Measure.Sync;

    /// <summary>Syncs; for a wake scenario, deliveries.</summary>
    public required long Syncs { get; init; }

    public required long Failed { get; init; }

    public required long Attempts { get; init; }

    public required long Dropped { get; init; }

    /// <summary>Device sync: changes received in pulls (0 for the reads).</summary>
    public long Changes { get; init; }

    /// <summary>Live pull: the waiting devices' deliveries and requests (wake scenarios only).</summary>
    public LiveCounts? Live { get; init; }

    public long Retries => Attempts - Syncs;

    public double FailedPercent => Syncs == 0 ? 0 : Failed * 100.0 / Syncs;

    public required double ThroughputPerSecond { get; init; }

    public required LatencySummary Latency { get; init; }

    public required HistogramData Histogram { get; init; }

    /// <summary>The statistics of each load step (NBomber's per-step view): which rate held, which did not.</summary>
    public IReadOnlyList<StepResult> Steps { get; init; } = [];

    public required IReadOnlyList<TimelinePoint> Timeline { get; init; }
}

/// <summary>One load step of a scenario: its target rate, and the syncs meant to start during it.</summary>
public sealed record StepResult(
    int Step, double Rate, double? RampTo, double FromSecond, double ToSecond, long Syncs, long Failed, double P50, double P99, double Max)
{
    public double FailedPercent => Syncs == 0 ? 0 : Failed * 100.0 / Syncs;

    /// <summary>A step longer than the gate's window: the figures of each window (empty otherwise).</summary>
    public IReadOnlyList<WindowResult> Windows { get; init; } = [];
}

/// <summary>
/// One window of a long step (<see cref="Gate.StepWindows"/>): the syncs meant to start during it.
/// <see cref="FromSecond"/> and <see cref="ToSecond"/> are seconds of the run.
/// </summary>
public sealed record WindowResult(
    int Window, double FromSecond, double ToSecond, long Syncs, long Failed, double P50, double P99, double Max)
{
    public double FailedPercent => Syncs == 0 ? 0 : Failed * 100.0 / Syncs;
}

/// <summary>Latency in milliseconds, from each sync's intended start to its end, retries included.</summary>
public sealed record LatencySummary(
    double Mean, double P50, double P75, double P90, double P95, double P99, double P999, double P9999, double Max);

/// <summary>A histogram as stored: its non-empty buckets as [index, count] pairs, and its summary values (µs).</summary>
public sealed record HistogramData(long Min, long Max, double Sum, IReadOnlyList<long[]> Buckets);

public sealed record TimelinePoint(int Second, long Syncs, long Failed, double P50, double P99, double Max, HistogramData Histogram);

/// <summary>
/// The service's latency over the raw database's for the same read in the same run: over the whole
/// run (<see cref="Step"/> null), and step by step, since a step past the capacity says little.
/// </summary>
public sealed record BaselineRatio(
    ReadKind Read, Transport Transport, double ServiceP50, double PostgresP50, double ServiceP99, double PostgresP99, int? Step = null)
{
    public double P50Ratio => PostgresP50 > 0 ? ServiceP50 / PostgresP50 : double.NaN;

    public double P99Ratio => PostgresP99 > 0 ? ServiceP99 / PostgresP99 : double.NaN;
}

/// <param name="Part">What of the scenario was judged: null for the whole run, else a step or a window of a step (<c>step 4 (6000/s)</c>,
/// <c>step 1 window 3 (20-30 min)</c>).</param>
public sealed record ThresholdCheck(string Scenario, string Metric, double Limit, double Actual, bool Passed, string? Part = null)
{
    /// <summary>The scenario, and the step or window when the check is not the whole run's.</summary>
    public string Subject => Part is null ? Scenario : $"{Scenario} {Part}";

    public string Describe() => $"{Subject} {Metric} {Actual:0.###} (limit {Limit:0.###})";
}
