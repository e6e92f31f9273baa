using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>
/// The load generator watching itself, since a saturated generator reports the server as slower than
/// it is (the seed benchmark's pitfall): its process CPU each second (CPU time over wall time and
/// cores), and how late it dispatched each sync against the schedule (time spent waiting for the
/// concurrency cap is not lag: that wait is the server's, and is counted in the sync's latency), second
/// by second of the run. <see cref="GeneratorVerdict"/> judges those seconds.
/// </summary>
public sealed class GeneratorMonitor : IDisposable
{

    private readonly Lock _lock = new();
    private readonly LatencyHistogram _lag = new();
    private readonly List<Tally> _seconds = [];
    private readonly List<(TimeSpan Until, double Share)> _cpuSamples = [];
    private readonly Timer _timer;
    private readonly long _started = Stopwatch.GetTimestamp();
    private TimeSpan _lastCpu = Process.GetCurrentProcess().TotalProcessorTime;
    private long _lastTicks = Stopwatch.GetTimestamp();

    public GeneratorMonitor()
    {
        _timer = new Timer(_ => Sample(), null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
    }

    /// <summary>A sync dispatched <paramref name="lag"/> late, at <paramref name="at"/> into the run.</summary>
    public void RecordLag(TimeSpan at, TimeSpan lag)
    {
        var micros = Math.Max(0, lag.Ticks / 10);
        var second = (int)Math.Max(0, at.Ticks / TimeSpan.TicksPerSecond);
        lock (_lock)
        {
            _lag.Record(micros);
            var tally = At(second);
            tally.Dispatches++;
            tally.Late += lag > GeneratorVerdict.LagLimit ? 1 : 0;
            tally.LagMax = Math.Max(tally.LagMax, micros);
        }
    }

    public GeneratorStats Stop()
    {
        _timer.Dispose();
        Sample();
        lock (_lock)
        {
            var perSecond = CpuPerSecond();
            var cpu = _cpuSamples.Count == 0 ? [0.0] : _cpuSamples.Select(s => s.Share).ToList();
            var count = Math.Max(_seconds.Count, perSecond.Count);
            var seconds = Enumerable.Range(0, count).Select(i =>
            {
                var tally = i < _seconds.Count ? _seconds[i] : new Tally();
                return new GeneratorSecond(
                    i, tally.Dispatches, tally.Late, tally.LagMax / 1000.0, i < perSecond.Count ? perSecond[i] : null);
            }).ToList();
            var verdict = GeneratorVerdict.Judge(seconds);
            return new GeneratorStats(
                cpu.Average(), cpu.Max(), TimeSpan.FromTicks(_lag.ValueAtPercentile(99) * 10), TimeSpan.FromTicks(_lag.Max * 10),
                Environment.ProcessorCount, verdict.Saturated)
            {
                Verdict = verdict,
                Lag = ResultBuilder.ToData(_lag),
                Seconds = seconds,
            };
        }
    }

    public void Dispose() => _timer.Dispose();

    private Tally At(int second)
    {
        while (_seconds.Count <= second)
        {
            _seconds.Add(new Tally());
        }

        return _seconds[second];
    }

    /// <summary>The CPU share since the last sample (the timer fires about each second, later on a busy box).</summary>
    private void Sample()
    {
        var cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var now = Stopwatch.GetTimestamp();
        lock (_lock)
        {
            var wall = Stopwatch.GetElapsedTime(_lastTicks, now);
            if (wall <= TimeSpan.FromMilliseconds(200))
            {
                return;
            }

            _cpuSamples.Add((Stopwatch.GetElapsedTime(_started, now), (cpu - _lastCpu) / wall / Environment.ProcessorCount));
            _lastCpu = cpu;
            _lastTicks = now;
        }
    }

    /// <summary>Each second's CPU: the share of the sample that covered the middle of it (none past the last sample).</summary>
    private List<double> CpuPerSecond()
    {
        var seconds = new List<double>();
        var sample = 0;
        for (var second = 0; _cpuSamples.Count > 0 && second + 0.5 <= _cpuSamples[^1].Until.TotalSeconds; second++)
        {
            while (_cpuSamples[sample].Until.TotalSeconds < second + 0.5)
            {
                sample++;
            }

            seconds.Add(_cpuSamples[sample].Share);
        }

        return seconds;
    }

    private sealed class Tally
    {
        public long Dispatches { get; set; }

        public long Late { get; set; }

        public long LagMax { get; set; }
    }
}
