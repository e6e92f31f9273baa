using System.Numerics;

namespace Kobo.Sync.DeviceSimulator.Metrics;

/// <summary>
/// A log-linear histogram of non-negative values (microseconds here) after HdrHistogram's public
/// design, with 3 significant digits: values below 2,048 are counted exactly; above, each power of
/// two is split into 1,024 equal sub-buckets, so a recorded value and the value reported for it
/// differ by less than 1/1,024 (0.1 %). Fixed memory, O(1) record, exact merge (add the counts), so
/// percentiles of several shards are computed from merged counts, never averaged.
/// Counts are kept in blocks of 1,024 buckets allocated on first use, so a histogram whose values
/// span a few powers of two (one second of a run) costs a few KiB, not the full 216 KiB.
/// Not thread-safe: each recording thread owns one and they are merged.
/// </summary>
public sealed class LatencyHistogram
{
    /// <summary>Values up to 2^36 µs (about 19 hours) are counted; larger ones are clamped to it.</summary>
    public const long HighestTrackableValue = (1L << 36) - 1;

    private const int SubBucketBits = 11; // 2,048 sub-buckets: 3 significant digits
    private const int SubBucketCount = 1 << SubBucketBits;
    private const int SubBucketHalfCount = SubBucketCount / 2;
    private const int HalfCountBits = SubBucketBits - 1;

    private static readonly int BucketCount = IndexOf(HighestTrackableValue) + 1;

    private const int BlockBits = 10;
    private const int BlockSize = 1 << BlockBits;

    private readonly long[]?[] _blocks = new long[]?[(BucketCount + BlockSize - 1) / BlockSize];

    public long TotalCount { get; private set; }

    public long Max { get; private set; }

    public long Min { get; private set; } = long.MaxValue;

    public double Sum { get; private set; }

    public double Mean => TotalCount == 0 ? 0 : Sum / TotalCount;

    public void Record(long value) => RecordMany(value, 1);

    public void RecordMany(long value, long count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if (count == 0)
        {
            return;
        }

        value = Math.Min(value, HighestTrackableValue);
        var index = IndexOf(value);
        (_blocks[index >> BlockBits] ??= new long[BlockSize])[index & (BlockSize - 1)] += count;
        TotalCount += count;
        Sum += (double)value * count;
        Max = Math.Max(Max, value);
        Min = Math.Min(Min, value);
    }

    /// <summary>Adds another histogram's counts to this one: the result is the histogram of both sets of values.</summary>
    public void Add(LatencyHistogram other)
    {
        for (var b = 0; b < _blocks.Length; b++)
        {
            if (other._blocks[b] is not { } theirs)
            {
                continue;
            }

            var ours = _blocks[b] ??= new long[BlockSize];
            for (var i = 0; i < BlockSize; i++)
            {
                ours[i] += theirs[i];
            }
        }

        TotalCount += other.TotalCount;
        Sum += other.Sum;
        if (other.TotalCount > 0)
        {
            Max = Math.Max(Max, other.Max);
            Min = Math.Min(Min, other.Min);
        }
    }

    public void Reset()
    {
        Array.Clear(_blocks);
        TotalCount = 0;
        Sum = 0;
        Max = 0;
        Min = long.MaxValue;
    }

    /// <summary>
    /// The value at a percentile (0-100) by nearest rank: the smallest recorded value v such that at
    /// least p % of the values are at or below v, reported as the highest value of v's bucket (never
    /// less than the exact answer, at most 0.1 % above it) and never above <see cref="Max"/>.
    /// </summary>
    public long ValueAtPercentile(double percentile)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(percentile, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(percentile, 100);
        if (TotalCount == 0)
        {
            return 0;
        }

        var rank = Math.Max(1, (long)Math.Ceiling(percentile / 100 * TotalCount));
        long seen = 0;
        foreach (var (index, count) in NonEmptyBuckets())
        {
            seen += count;
            if (seen >= rank)
            {
                return Math.Min(HighestEquivalentValue(index), Max);
            }
        }

        return Max;
    }

    /// <summary>The counts as (bucket index, count) pairs of the non-empty buckets: the form kept in results and merged.</summary>
    public IEnumerable<(int Index, long Count)> NonEmptyBuckets()
    {
        for (var b = 0; b < _blocks.Length; b++)
        {
            if (_blocks[b] is not { } block)
            {
                continue;
            }

            for (var i = 0; i < BlockSize; i++)
            {
                if (block[i] != 0)
                {
                    yield return ((b << BlockBits) + i, block[i]);
                }
            }
        }
    }

    /// <summary>Rebuilds a histogram from <see cref="NonEmptyBuckets"/> and its summary values.</summary>
    public static LatencyHistogram FromBuckets(IEnumerable<(int Index, long Count)> buckets, long min, long max, double sum)
    {
        var histogram = new LatencyHistogram();
        foreach (var (index, count) in buckets)
        {
            if (index < 0 || index >= BucketCount || count < 0)
            {
                throw new FormatException($"Histogram bucket {index} with count {count} is out of range.");
            }

            (histogram._blocks[index >> BlockBits] ??= new long[BlockSize])[index & (BlockSize - 1)] += count;
            histogram.TotalCount += count;
        }

        if (histogram.TotalCount > 0)
        {
            histogram.Min = min;
            histogram.Max = max;
            histogram.Sum = sum;
        }

        return histogram;
    }

    /// <summary>The lowest value counted in bucket <paramref name="index"/>.</summary>
    public static long LowestEquivalentValue(int index)
    {
        if (index < SubBucketCount)
        {
            return index;
        }

        var shift = ((index - SubBucketCount) / SubBucketHalfCount) + 1;
        var sub = SubBucketHalfCount + ((index - SubBucketCount) % SubBucketHalfCount);
        return (long)sub << shift;
    }

    /// <summary>The highest value counted in bucket <paramref name="index"/>.</summary>
    public static long HighestEquivalentValue(int index)
    {
        if (index < SubBucketCount)
        {
            return index;
        }

        var shift = ((index - SubBucketCount) / SubBucketHalfCount) + 1;
        return LowestEquivalentValue(index) + (1L << shift) - 1;
    }

    internal static int IndexOf(long value)
    {
        if (value < SubBucketCount)
        {
            return (int)value;
        }

        // value has its top bit at position msb >= 11; keep its 11 leading bits.
        var msb = 63 - BitOperations.LeadingZeroCount((ulong)value);
        var shift = msb - HalfCountBits;
        var sub = (int)(value >> shift); // in [1024, 2047]
        return SubBucketCount + ((shift - 1) * SubBucketHalfCount) + (sub - SubBucketHalfCount);
    }
}
