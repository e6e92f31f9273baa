using BenchmarkDotNet.Attributes;
using HdrHistogram;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Benchmarks;

/// <summary>
/// The simulator's <see cref="LatencyHistogram"/> against HdrHistogram's <see cref="LongHistogram"/>
/// at the same range (up to 2^36 µs) and precision (3 significant digits), in the ways the simulator
/// uses one: a record per sync, a new histogram per scenario and second of the run's timeline, that
/// second merged into the run's total, and percentiles read from the total.
/// </summary>
[MemoryDiagnoser]
public class LatencyHistogramBenchmarks
{
    private const int SyncsPerSecond = 1_000;

    private readonly LatencyHistogram _ours = new();
    private readonly LongHistogram _hdr = new(LatencyHistogram.HighestTrackableValue, 3);
    private readonly LatencyHistogram _oursTotal = new();
    private readonly LongHistogram _hdrTotal = new(LatencyHistogram.HighestTrackableValue, 3);
    private LatencyHistogram _oursSecond = null!;
    private LongHistogram _hdrSecond = null!;
    private long[] _latencies = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        // Latencies of a busy second: log-normal around 4 ms, with a tail into the hundreds of ms.
        var random = new Random(20211);
        _latencies = new long[SyncsPerSecond];
        for (var i = 0; i < _latencies.Length; i++)
        {
            var normal = Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
            _latencies[i] = (long)Math.Exp(Math.Log(4_000) + (0.8 * normal));
        }

        _oursSecond = new LatencyHistogram();
        _hdrSecond = new LongHistogram(LatencyHistogram.HighestTrackableValue, 3);
        foreach (var latency in _latencies)
        {
            _oursSecond.Record(latency);
            _hdrSecond.RecordValue(latency);
        }

        for (var second = 0; second < 100; second++)
        {
            _oursTotal.Add(_oursSecond);
            _hdrTotal.Add(_hdrSecond);
        }
    }

    [Benchmark(Baseline = true)]
    public void RecordOurs() => _ours.Record(_latencies[_next++ % SyncsPerSecond]);

    [Benchmark]
    public void RecordHdr() => _hdr.RecordValue(_latencies[_next++ % SyncsPerSecond]);

    /// <summary>One scenario's second of the timeline: a new histogram and a thousand syncs recorded into it.</summary>
    [Benchmark(OperationsPerInvoke = SyncsPerSecond)]
    public long SecondOfTimelineOurs()
    {
        var second = new LatencyHistogram();
        foreach (var latency in _latencies)
        {
            second.Record(latency);
        }

        return second.TotalCount;
    }

    [Benchmark(OperationsPerInvoke = SyncsPerSecond)]
    public long SecondOfTimelineHdr()
    {
        var second = new LongHistogram(LatencyHistogram.HighestTrackableValue, 3);
        foreach (var latency in _latencies)
        {
            second.RecordValue(latency);
        }

        return second.TotalCount;
    }

    /// <summary>A run's total made and one second of the timeline merged into it.</summary>
    [Benchmark]
    public long MergeSecondOurs()
    {
        var total = new LatencyHistogram();
        total.Add(_oursSecond);
        return total.TotalCount;
    }

    [Benchmark]
    public long MergeSecondHdr()
    {
        var total = new LongHistogram(LatencyHistogram.HighestTrackableValue, 3);
        total.Add(_hdrSecond);
        return total.TotalCount;
    }

    /// <summary>The p99 of a hundred such seconds merged.</summary>
    [Benchmark]
    public long P99Ours() => _oursTotal.ValueAtPercentile(99);

    [Benchmark]
    public long P99Hdr() => _hdrTotal.GetValueAtPercentile(99);

    /// <summary>
    /// Accuracy, printed rather than timed: for many random sets of latencies, how far each
    /// histogram's percentiles fall from the exact nearest-rank value (the p-th value of the sorted
    /// set), and each histogram's memory for one second of a run.
    /// </summary>
    public static void PrintAccuracy(TextWriter output)
    {
        var random = new Random(7);
        double[] percentiles = [50, 90, 99, 99.9, 100];
        double oursWorstBelow = 0, oursWorstAbove = 0, hdrWorstBelow = 0, hdrWorstAbove = 0;
        int oursBelow = 0, hdrBelow = 0, oursAboveMax = 0, hdrAboveMax = 0, checks = 0;
        for (var set = 0; set < 2_000; set++)
        {
            var count = random.Next(1, 2_000);
            var values = new long[count];
            var ours = new LatencyHistogram();
            var hdr = new LongHistogram(LatencyHistogram.HighestTrackableValue, 3);
            for (var i = 0; i < count; i++)
            {
                values[i] = (long)Math.Exp(random.NextDouble() * Math.Log(60_000_000));
                ours.Record(values[i]);
                hdr.RecordValue(values[i]);
            }

            Array.Sort(values);
            foreach (var p in percentiles)
            {
                checks++;
                var exact = values[Math.Max(1, (int)Math.Ceiling(p / 100 * count)) - 1];
                Compare(
                    ours.ValueAtPercentile(p), exact, values[^1], ref oursWorstBelow, ref oursWorstAbove, ref oursBelow, ref oursAboveMax);
                Compare(
                    hdr.GetValueAtPercentile(p), exact, values[^1], ref hdrWorstBelow, ref hdrWorstAbove, ref hdrBelow, ref hdrAboveMax);
            }
        }

        var second = new LatencyHistogram();
        var hdrSecond = new LongHistogram(LatencyHistogram.HighestTrackableValue, 3);
        for (var i = 0; i < SyncsPerSecond; i++)
        {
            var latency = 2_000 + random.Next(0, 40_000);
            second.Record(latency);
            hdrSecond.RecordValue(latency);
        }

        output.WriteLine($"{checks} percentiles of 2,000 random sets against the exact nearest-rank value:");
        output.WriteLine(
            $"  LatencyHistogram: below exact {oursBelow} times (worst {oursWorstBelow:P3}), above {oursWorstAbove:P3} at worst, " +
            $"above the set's max {oursAboveMax} times");
        output.WriteLine(
            $"  HdrHistogram:     below exact {hdrBelow} times (worst {hdrWorstBelow:P3}), above {hdrWorstAbove:P3} at worst, " +
            $"above the set's max {hdrAboveMax} times");
        output.WriteLine(
            $"Counts array for one second of 2-42 ms latencies: LatencyHistogram " +
            $"{second.NonEmptyBuckets().Select(b => b.Index >> 10).Distinct().Count() * 1_024 * sizeof(long):N0} bytes, " +
            $"HdrHistogram {hdrSecond.GetEstimatedFootprintInBytes():N0} bytes");

        static void Compare(
            long reported, long exact, long max, ref double worstBelow, ref double worstAbove, ref int below, ref int aboveMax)
        {
            var error = (reported - exact) / (double)exact;
            if (error < 0)
            {
                below++;
                worstBelow = Math.Min(worstBelow, error);
            }

            worstAbove = Math.Max(worstAbove, error);
            if (reported > max)
            {
                aboveMax++;
            }
        }
    }
}
