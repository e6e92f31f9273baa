using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Tests.Metrics;

/// <summary>
/// Property tests: for many random data sets of different shapes, every percentile the histogram
/// reports is within its 3-significant-digit bound of the exact nearest-rank percentile, and merging
/// histograms equals recording all values into one.
/// </summary>
[Trait("Category", "Fast")]
public sealed class LatencyHistogramTests
{
    private static readonly double[] Percentiles = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

    public static TheoryData<int> Seeds()
    {
        var data = new TheoryData<int>();
        for (var seed = 1; seed <= 40; seed++)
        {
            data.Add(seed);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void EveryPercentileIsWithinOnePartInAThousandOfTheExactOne(int seed)
    {
        var values = RandomValues(seed);
        var histogram = new LatencyHistogram();
        foreach (var value in values)
        {
            histogram.Record(value);
        }

        Array.Sort(values);
        foreach (var p in Percentiles)
        {
            var exact = ExactPercentile(values, p);
            var reported = histogram.ValueAtPercentile(p);
            Assert.True(reported >= exact, $"seed {seed} p{p}: reported {reported} below exact {exact}");
            Assert.True(reported <= exact + (exact / 1024.0), $"seed {seed} p{p}: reported {reported} more than 0.1% above exact {exact}");
        }

        Assert.Equal(values.Length, histogram.TotalCount);
        Assert.Equal(values[^1], histogram.Max);
        Assert.Equal(values[0], histogram.Min);
        Assert.Equal(values.Average(v => (double)v), histogram.Mean, 6);
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void MergingShardsGivesTheHistogramOfAllTheirValues(int seed)
    {
        var values = RandomValues(seed);
        var all = new LatencyHistogram();
        var shards = new[] { new LatencyHistogram(), new LatencyHistogram(), new LatencyHistogram() };
        for (var i = 0; i < values.Length; i++)
        {
            all.Record(values[i]);
            shards[i % shards.Length].Record(values[i]);
        }

        var merged = new LatencyHistogram();
        foreach (var shard in shards)
        {
            var copy = LatencyHistogram.FromBuckets(shard.NonEmptyBuckets().ToList(), shard.Min, shard.Max, shard.Sum);
            merged.Add(copy);
        }

        Assert.Equal(all.NonEmptyBuckets(), merged.NonEmptyBuckets());
        Assert.Equal(all.TotalCount, merged.TotalCount);
        Assert.Equal(all.Max, merged.Max);
        Assert.Equal(all.Min, merged.Min);
        foreach (var p in Percentiles)
        {
            Assert.Equal(all.ValueAtPercentile(p), merged.ValueAtPercentile(p));
        }
    }

    [Fact]
    public void ValuesBelowTwoThousandFortyEightAreCountedExactly()
    {
        var histogram = new LatencyHistogram();
        for (var v = 0; v < 2048; v++)
        {
            histogram.Record(v);
        }

        for (var v = 1; v <= 2048; v++)
        {
            Assert.Equal(v - 1, histogram.ValueAtPercentile(v * 100.0 / 2048));
        }
    }

    [Fact]
    public void EveryValueLandsInABucketWhoseBoundsHoldIt()
    {
        var random = new Random(7);
        for (var i = 0; i < 100_000; i++)
        {
            var value = (long)Math.Exp(random.NextDouble() * Math.Log(LatencyHistogram.HighestTrackableValue));
            var index = LatencyHistogram.IndexOf(value);
            Assert.InRange(value, LatencyHistogram.LowestEquivalentValue(index), LatencyHistogram.HighestEquivalentValue(index));
            Assert.Equal(index + 1, LatencyHistogram.IndexOf(LatencyHistogram.HighestEquivalentValue(index) + 1));
        }
    }

    [Fact]
    public void AnEmptyHistogramReportsZero()
    {
        var histogram = new LatencyHistogram();

        Assert.Equal(0, histogram.ValueAtPercentile(99));
        Assert.Equal(0, histogram.TotalCount);
    }

    [Fact]
    public void ANegativeValueIsRefused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new LatencyHistogram().Record(-1));
    }

    /// <summary>Data sets of several shapes: uniform, log-uniform over six decades, a bimodal stall, constant.</summary>
    private static long[] RandomValues(int seed)
    {
        var random = new Random(seed);
        var count = random.Next(1, 20_000);
        var values = new long[count];
        var shape = seed % 4;
        for (var i = 0; i < count; i++)
        {
            values[i] = shape switch
            {
                0 => random.NextInt64(0, 5_000_000),
                1 => (long)Math.Exp(random.NextDouble() * Math.Log(60_000_000)),
                2 => random.Next(100) < 97 ? random.Next(500, 20_000) : random.Next(1_900_000, 2_100_000),
                _ => 123_456,
            };
        }

        return values;
    }

    private static long ExactPercentile(long[] sorted, double percentile)
    {
        var rank = Math.Max(1, (long)Math.Ceiling(percentile / 100 * sorted.Length));
        return sorted[rank - 1];
    }
}
