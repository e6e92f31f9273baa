using System.Collections.Concurrent;
using System.Threading.RateLimiting;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// A token bucket per device (<c>Admission:PerDevice*</c>; a Kobo link's key, <c>Admission:PerKoboLink*</c>),
/// refilled when the device asks rather than by a timer: the rate's share of a token for the time
/// since its last refill, up to its burst, as <see cref="TokenBucketRateLimiter"/> without
/// auto-replenishment refills on each call of its owner, and a refusal's wait worded as it words it. The
/// package's partitioned limiter refills every device's bucket on a heartbeat every 100 ms, which at a
/// fleet's pace (each device seen once, a bucket kept 10 s) cost 5 % of the service's CPU at 100 syncs/s
/// (docs/dependencies.md has the same-run comparison). A bucket left untouched for a whole generation
/// (<see cref="GenerationSeconds"/>) is dropped, and the device starts again with a full one, as the
/// package drops a limiter idle for 10 s; with the default shapes a bucket is full again within 2 s
/// anyway. So the buckets of two generations at most are held, with no timer.
/// </summary>
internal sealed class DeviceRateLimiter(BucketShape device, BucketShape koboLink, string koboLinkPrefix, TimeProvider clock)
    : PartitionedRateLimiter<HttpContext>
{
    /// <summary>How long a generation of buckets is kept current; a bucket untouched for a whole generation is dropped.</summary>
    public const int GenerationSeconds = 10;

    private static readonly RateLimitLease Granted = new Lease(true, null);

    private readonly Lock _rotation = new();
    private ConcurrentDictionary<string, Bucket> _current = new(StringComparer.Ordinal);
    private ConcurrentDictionary<string, Bucket> _previous = new(StringComparer.Ordinal);
    private long _generationStarted = clock.GetTimestamp();

    public override RateLimiterStatistics? GetStatistics(HttpContext resource) => null;

    protected override RateLimitLease AttemptAcquireCore(HttpContext resource, int permitCount)
    {
        if (AdmissionRequests.DeviceOf(resource) is not { } key)
        {
            return Granted; // not a device's request (a health probe): no bucket
        }

        var shape = key.StartsWith(koboLinkPrefix, StringComparison.Ordinal) ? koboLink : device;
        var now = clock.GetTimestamp();
        var bucket = BucketOf(key, shape, now);
        var wait = bucket.TryTake(permitCount, shape, now, clock.TimestampFrequency);
        return wait is null ? Granted : new Lease(false, wait);
    }

    protected override ValueTask<RateLimitLease> AcquireAsyncCore(
        HttpContext resource, int permitCount, CancellationToken cancellationToken) =>
        ValueTask.FromResult(AttemptAcquireCore(resource, permitCount)); // no queue: a device over its rate is told when to come back

    private Bucket BucketOf(string key, BucketShape shape, long now)
    {
        if (now - Volatile.Read(ref _generationStarted) >= GenerationSeconds * clock.TimestampFrequency)
        {
            lock (_rotation)
            {
                if (now - _generationStarted >= GenerationSeconds * clock.TimestampFrequency)
                {
                    Volatile.Write(ref _previous, _current);
                    Volatile.Write(ref _current, new ConcurrentDictionary<string, Bucket>(StringComparer.Ordinal));
                    Volatile.Write(ref _generationStarted, now);
                }
            }
        }

        var current = Volatile.Read(ref _current);
        if (current.TryGetValue(key, out var bucket))
        {
            return bucket;
        }

        // Carried over from the previous generation, or a new device with a full bucket.
        return Volatile.Read(ref _previous).TryGetValue(key, out var carried)
            ? current.GetOrAdd(key, carried)
            : current.GetOrAdd(key, static (_, state) => new Bucket(state.Shape.Burst, state.Now), (Shape: shape, Now: now));
    }

    private sealed class Bucket(double tokens, long refilledAt)
    {
        private readonly Lock _lock = new();
        private double _tokens = tokens;
        private long _refilledAt = refilledAt;

        /// <summary>Null when <paramref name="permits"/> were taken; otherwise when to come back.</summary>
        public TimeSpan? TryTake(int permits, BucketShape shape, long now, long frequency)
        {
            lock (_lock)
            {
                if (now > _refilledAt)
                {
                    _tokens = Math.Min(shape.Burst, _tokens + ((now - _refilledAt) * (double)shape.PerSecond / frequency));
                    _refilledAt = now;
                }

                if (_tokens >= permits && _tokens > 0)
                {
                    _tokens -= permits;
                    return null;
                }

                // As the package words it: the whole seconds the missing tokens take, at least one.
                return TimeSpan.FromSeconds(Math.Max((permits - (int)_tokens) / shape.PerSecond, 1));
            }
        }
    }

    private sealed class Lease(bool acquired, TimeSpan? retryAfter) : RateLimitLease
    {
        public override bool IsAcquired { get; } = acquired;

        public override IEnumerable<string> MetadataNames => retryAfter is null ? [] : [MetadataName.RetryAfter.Name];

        public override bool TryGetMetadata(string metadataName, out object? metadata)
        {
            metadata = retryAfter;
            return retryAfter is not null && metadataName == MetadataName.RetryAfter.Name;
        }
    }
}

/// <summary>A token bucket's size and its refill per second.</summary>
internal readonly record struct BucketShape(int Burst, int PerSecond);
