using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>
/// The load generator watching itself, since a saturated generator reports the server as slower than
/// it is (the seed benchmark's pitfall): its own CPU use each second, and how late it dispatched each
/// sync compared with the schedule (time spent waiting for the concurrency cap is not lag: that wait
/// is the server's, and is counted in the sync's latency). The verdict (<see cref="GeneratorVerdict"/>)
/// leaves out the first <see cref="GeneratorVerdict.WarmUp"/> (the JIT's first calls) and counts
/// dispatches and seconds rather than taking a percentile of a few dozen samples.
/// </summary>
public sealed class GeneratorMonitor : IDisposable
{
    /// <summary>A dispatch later than this is late.</summary>
    public static readonly TimeSpan LagLimit = TimeSpan.FromMilliseconds(20);

    /// <summary>Process CPU above this share of all cores, in a second, is a second the generator competed for CPU.</summary>
    public const double CpuLimit = 0.85;

    private readonly Lock _lock = new();
    private readonly LatencyHistogram _lag = new();
    private readonly List<double> _cpuPerSecond = [];
    private readonly Timer _timer;
    private readonly long _started = Stopwatch.GetTimestamp();
    private TimeSpan _lastCpu = Process.GetCurrentProcess().TotalProcessorTime;
    private long _lastTicks = Stopwatch.GetTimestamp();
    private long _judged;
    private long _late;
    private int _cpuSecondsJudged;
    private int _cpuSecondsOver;

    public GeneratorMonitor()
    {
        _timer = new Timer(_ => Sample(), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    public void RecordLag(TimeSpan lag)
    {
        var warm = Stopwatch.GetElapsedTime(_started) >= GeneratorVerdict.WarmUp;
        lock (_lock)
        {
            _lag.Record(Math.Max(0, lag.Ticks / 10));
            if (warm)
            {
                _judged++;
                if (lag > LagLimit)
                {
                    _late++;
                }
            }
        }
    }

    public GeneratorStats Stop()
    {
        _timer.Dispose();
        Sample();
        lock (_lock)
        {
            var cpu = _cpuPerSecond.Count == 0 ? [0.0] : _cpuPerSecond;
            var verdict = new GeneratorVerdict(_judged, _late, _cpuSecondsJudged, _cpuSecondsOver);
            return new GeneratorStats(
                cpu.Average(), cpu.Max(), TimeSpan.FromTicks(_lag.ValueAtPercentile(99) * 10), TimeSpan.FromTicks(_lag.Max * 10),
                Environment.ProcessorCount, verdict.Saturated)
            {
                Verdict = verdict,
            };
        }
    }

    public void Dispose() => _timer.Dispose();

    private void Sample()
    {
        var cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var now = Stopwatch.GetTimestamp();
        var warm = Stopwatch.GetElapsedTime(_started, now) >= GeneratorVerdict.WarmUp;
        lock (_lock)
        {
            var wall = Stopwatch.GetElapsedTime(_lastTicks, now);
            if (wall > TimeSpan.FromMilliseconds(200))
            {
                var share = (cpu - _lastCpu) / wall / Environment.ProcessorCount;
                _cpuPerSecond.Add(share);
                _lastCpu = cpu;
                _lastTicks = now;
                if (warm)
                {
                    _cpuSecondsJudged++;
                    _cpuSecondsOver += share > CpuLimit ? 1 : 0;
                }
            }
        }
    }
}

/// <summary>
/// Whether the generator fell behind, from what it measured after its warm-up: more than
/// <see cref="LateShareLimit"/> of its dispatches late by over <see cref="GeneratorMonitor.LagLimit"/>, and at
/// least <see cref="MinLateDispatches"/> of them; or its CPU over <see cref="GeneratorMonitor.CpuLimit"/> in at
/// least <see cref="MinCpuSecondsOver"/> seconds and <see cref="CpuSecondsShareLimit"/> of them. A handful of
/// late first calls, or one busy second, decides nothing.
/// </summary>
public sealed record GeneratorVerdict(long JudgedDispatches, long LateDispatches, int CpuSeconds, int CpuSecondsOver)
{
    /// <summary>The start left out of the verdict: the JIT's first calls and the connections' first opening.</summary>
    public static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(2);

    public const double LateShareLimit = 0.01;
    public const int MinLateDispatches = 20;
    public const int MinCpuSecondsOver = 3;
    public const double CpuSecondsShareLimit = 0.10;

    public bool LateDispatching => LateDispatches >= MinLateDispatches && LateDispatches > JudgedDispatches * LateShareLimit;

    public bool CpuStarved => CpuSecondsOver >= MinCpuSecondsOver && CpuSecondsOver > CpuSeconds * CpuSecondsShareLimit;

    public bool Saturated => LateDispatching || CpuStarved;

    public string Describe()
    {
        var c = System.Globalization.CultureInfo.InvariantCulture;
        var reasons = new List<string>();
        if (LateDispatching)
        {
            reasons.Add(string.Create(c, $"{LateDispatches:N0} of {JudgedDispatches:N0} dispatches late by over {GeneratorMonitor.LagLimit.TotalMilliseconds:F0} ms"));
        }

        if (CpuStarved)
        {
            reasons.Add(string.Create(c, $"CPU over {GeneratorMonitor.CpuLimit * 100:F0}% of the cores in {CpuSecondsOver} of {CpuSeconds} seconds"));
        }

        return string.Join("; ", reasons);
    }
}

/// <summary>The generator's own load during a run: CPU as a share of all cores, and its dispatch lag.</summary>
public sealed record GeneratorStats(double CpuMean, double CpuPeak, TimeSpan DispatchLagP99, TimeSpan DispatchLagMax, int Cores, bool Saturated)
{
    /// <summary>What the verdict was taken from (absent in results merged from shards: each shard has its own).</summary>
    public GeneratorVerdict? Verdict { get; init; }

    public string? Warning => Saturated
        ? $"the load generator was saturated ({SaturationReason}): latencies include its own delay; use more shards or a bigger load machine"
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

            var c = System.Globalization.CultureInfo.InvariantCulture;
            return Verdict is { Saturated: true } verdict
                ? verdict.Describe()
                : string.Create(c, $"CPU peak {CpuPeak:P0} of {Cores} cores, dispatch lag p99 {DispatchLagP99.TotalMilliseconds:F1} ms");
        }
    }
}
