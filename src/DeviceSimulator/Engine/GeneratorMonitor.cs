using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>
/// The load generator watching itself, since a saturated generator reports the server as slower than
/// it is (the seed benchmark's pitfall): its own CPU use each second, and how late it dispatched each
/// sync compared with the schedule (time spent waiting for the concurrency cap is not lag: that wait
/// is the server's, and is counted in the sync's latency).
/// </summary>
public sealed class GeneratorMonitor : IDisposable
{
    /// <summary>Dispatch lag p99 above this means the generator cannot keep the schedule.</summary>
    public static readonly TimeSpan LagLimit = TimeSpan.FromMilliseconds(20);

    /// <summary>Process CPU above this share of all cores, in any second, means the generator competes for CPU.</summary>
    public const double CpuLimit = 0.85;

    private readonly Lock _lock = new();
    private readonly LatencyHistogram _lag = new();
    private readonly List<double> _cpuPerSecond = [];
    private readonly Timer _timer;
    private TimeSpan _lastCpu = Process.GetCurrentProcess().TotalProcessorTime;
    private long _lastTicks = Stopwatch.GetTimestamp();

    public GeneratorMonitor()
    {
        _timer = new Timer(_ => Sample(), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    public void RecordLag(TimeSpan lag)
    {
        lock (_lock)
        {
            _lag.Record(Math.Max(0, lag.Ticks / 10));
        }
    }

    public GeneratorStats Stop()
    {
        _timer.Dispose();
        Sample();
        lock (_lock)
        {
            var cpu = _cpuPerSecond.Count == 0 ? [0.0] : _cpuPerSecond;
            var lagP99 = TimeSpan.FromTicks(_lag.ValueAtPercentile(99) * 10);
            var peak = cpu.Max();
            return new GeneratorStats(
                cpu.Average(), peak, lagP99, TimeSpan.FromTicks(_lag.Max * 10), Environment.ProcessorCount,
                Saturated: lagP99 > LagLimit || peak > CpuLimit);
        }
    }

    public void Dispose() => _timer.Dispose();

    private void Sample()
    {
        var cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var now = Stopwatch.GetTimestamp();
        lock (_lock)
        {
            var wall = Stopwatch.GetElapsedTime(_lastTicks, now);
            if (wall > TimeSpan.FromMilliseconds(200))
            {
                _cpuPerSecond.Add((cpu - _lastCpu) / wall / Environment.ProcessorCount);
                _lastCpu = cpu;
                _lastTicks = now;
            }
        }
    }
}

/// <summary>The generator's own load during a run: CPU as a share of all cores, and its dispatch lag.</summary>
public sealed record GeneratorStats(double CpuMean, double CpuPeak, TimeSpan DispatchLagP99, TimeSpan DispatchLagMax, int Cores, bool Saturated)
{
    public string? Warning => Saturated
        ? $"the load generator was saturated (CPU peak {CpuPeak:P0} of {Cores} cores, dispatch lag p99 {DispatchLagP99.TotalMilliseconds:F1} ms): latencies include its own delay; use more shards or a bigger load machine"
        : null;

    /// <summary>Which of the generator's limits it passed (<see cref="GeneratorMonitor.CpuLimit"/>, <see cref="GeneratorMonitor.LagLimit"/>); null when it was not saturated.</summary>
    public string? SaturationReason
    {
        get
        {
            if (!Saturated)
            {
                return null;
            }

            var c = System.Globalization.CultureInfo.InvariantCulture;
            var reasons = new List<string>();
            if (CpuPeak > GeneratorMonitor.CpuLimit)
            {
                reasons.Add(string.Create(c, $"CPU peak {CpuPeak:P0} of {Cores} cores, over {GeneratorMonitor.CpuLimit:P0}"));
            }

            if (DispatchLagP99 > GeneratorMonitor.LagLimit)
            {
                reasons.Add(string.Create(c, $"dispatch lag p99 {DispatchLagP99.TotalMilliseconds:F1} ms, over {GeneratorMonitor.LagLimit.TotalMilliseconds:F0} ms"));
            }

            return reasons.Count > 0
                ? string.Join("; ", reasons)
                : string.Create(c, $"CPU peak {CpuPeak:P0} of {Cores} cores, dispatch lag p99 {DispatchLagP99.TotalMilliseconds:F1} ms");
        }
    }
}
