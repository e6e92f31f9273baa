using System.Globalization;

namespace Kobo.Sync.DeviceSimulator.Results;

/// <summary>
/// One second of the run as the generator saw itself: the syncs it dispatched in that second (wall
/// time, so a generator that falls behind stretches its dispatches over more seconds), how many of
/// them were later than <see cref="GeneratorVerdict.LagLimit"/>, the latest, and its process CPU as a
/// share of all cores (null when no CPU sample fell in that second).
/// </summary>
public sealed record GeneratorSecond(int Second, long Dispatches, long Late, double LagMaxMs, double? Cpu)
{
    /// <summary>Most of the second's dispatches late: the generator was behind its schedule, not jittering.</summary>
    public bool Behind => Late * 2 > Dispatches;
}

/// <summary>
/// Whether the generator fell behind, from the seconds after its warm-up (<see cref="WarmUpSeconds"/>:
/// the JIT's first calls, the first connections). It is saturated when its dispatch lag was sustained,
/// behind (more than half of a second's dispatches late by over <see cref="GeneratorVerdict.LagLimit"/>)
/// in at least <see cref="MinBehindSeconds"/> seconds and more than <see cref="BehindShareLimit"/> of
/// the judged ones, over at least <see cref="MinJudgedDispatches"/> dispatches; or when its process
/// took over <see cref="GeneratorVerdict.CpuLimit"/> of all cores in at least <see cref="MinCpuSecondsOver"/>
/// seconds and more than <see cref="CpuSecondsShareLimit"/> of them. No percentile decides: a few dozen
/// late first calls, a second's stall of a busy box, or one busy second are not a generator falling behind.
/// </summary>
public sealed record GeneratorVerdict(
    long JudgedDispatches, long LateDispatches, int JudgedSeconds, int BehindSeconds, int CpuSeconds, int CpuSecondsOver)
{
    /// <summary>A dispatch later than this is late.</summary>
    public static readonly TimeSpan LagLimit = TimeSpan.FromMilliseconds(20);

    /// <summary>Process CPU above this share of all cores, in a second, is a second the generator competed for CPU.</summary>
    public const double CpuLimit = 0.85;

    /// <summary>The first seconds of the run, left out of the verdict.</summary>
    public const int WarmUpSeconds = 1;

    public const int MinJudgedDispatches = 50;
    public const int MinBehindSeconds = 3;
    public const double BehindShareLimit = 0.10;
    public const int MinCpuSecondsOver = 3;
    public const double CpuSecondsShareLimit = 0.10;

    public bool LateDispatching =>
        JudgedDispatches >= MinJudgedDispatches && BehindSeconds >= MinBehindSeconds && BehindSeconds > JudgedSeconds * BehindShareLimit;

    public bool CpuStarved => CpuSecondsOver >= MinCpuSecondsOver && CpuSecondsOver > CpuSeconds * CpuSecondsShareLimit;

    public bool Saturated => LateDispatching || CpuStarved;

    /// <summary>The verdict of a run's seconds: those from <see cref="WarmUpSeconds"/> on are judged.</summary>
    public static GeneratorVerdict Judge(IEnumerable<GeneratorSecond> seconds)
    {
        long dispatches = 0, late = 0;
        int judged = 0, behind = 0, cpu = 0, cpuOver = 0;
        foreach (var second in seconds.Where(s => s.Second >= WarmUpSeconds))
        {
            if (second.Dispatches > 0)
            {
                judged++;
                dispatches += second.Dispatches;
                late += second.Late;
                behind += second.Behind ? 1 : 0;
            }

            if (second.Cpu is { } share)
            {
                cpu++;
                cpuOver += share > CpuLimit ? 1 : 0;
            }
        }

        return new GeneratorVerdict(dispatches, late, judged, behind, cpu, cpuOver);
    }

    /// <summary>Why the generator counts as saturated (empty when it does not).</summary>
    public string Describe()
    {
        var reasons = new List<string>();
        if (LateDispatching)
        {
            reasons.Add(LagFigures());
        }

        if (CpuStarved)
        {
            reasons.Add(CpuFigures());
        }

        return string.Join("; ", reasons);
    }

    /// <summary>Every figure the verdict was taken from, saturated or not, for the reports.</summary>
    public string Summary() => string.Create(
        CultureInfo.InvariantCulture, $"after the first {WarmUpSeconds} s, {LagFigures()}; {CpuFigures()}");

    private string LagFigures() => string.Create(
        CultureInfo.InvariantCulture,
        $"behind in {BehindSeconds} of {JudgedSeconds} seconds (most of the second's dispatches late by over " +
        $"{LagLimit.TotalMilliseconds:F0} ms; {LateDispatches:N0} of {JudgedDispatches:N0} dispatches late)");

    private string CpuFigures() => string.Create(
        CultureInfo.InvariantCulture, $"CPU over {CpuLimit * 100:F0}% of the cores in {CpuSecondsOver} of {CpuSeconds} seconds");
}

/// <summary>The generator's own load during a run: CPU as a share of all cores, and its dispatch lag.</summary>
/// <param name="DispatchLagP99">Over every dispatch of the run, warm-up included: a figure to read, not the verdict's.</param>
public sealed record GeneratorStats(
    double CpuMean, double CpuPeak, TimeSpan DispatchLagP99, TimeSpan DispatchLagMax, int Cores, bool Saturated)
{
    /// <summary>What the verdict was taken from (absent in results merged from shards: each shard has its own).</summary>
    public GeneratorVerdict? Verdict { get; init; }

    /// <summary>Every dispatch's lag (µs), so the lag of merged shards is computed again, not taken as the worst shard's.</summary>
    public HistogramData? Lag { get; init; }

    /// <summary>Each second of the run, as the verdict judged it.</summary>
    public IReadOnlyList<GeneratorSecond> Seconds { get; init; } = [];

    public string? Warning => Saturated
        ? $"the load generator was saturated ({SaturationReason}): latencies include its own delay; " +
            $"use more shards or a bigger load machine"
        : null;

    /// <summary>Why the generator counts as saturated; null when it was not.</summary>
    public string? SaturationReason
    {
        get
        {
            if (!Saturated)
            {
                return null;
            }

            return Verdict is { Saturated: true } verdict
                ? verdict.Describe()
                : string.Create(
                    CultureInfo.InvariantCulture,
                    $"CPU peak {CpuPeak:P0} of {Cores} cores, dispatch lag p99 {DispatchLagP99.TotalMilliseconds:F1} ms");
        }
    }
}
