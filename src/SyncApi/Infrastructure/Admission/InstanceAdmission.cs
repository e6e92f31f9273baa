using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The instance's concurrency limit (<c>Admission:ConcurrencyLimit</c> slots, <c>Admission:QueueLimit</c>
/// waiting), one object shared by the global limiter, which holds a slot for a whole request, and by
/// live pull, whose requests pass the global limiter without one (they may wait a minute for a change)
/// and take a slot only around each of their database calls (<see cref="EnterAsync"/>).
/// </summary>
public sealed class InstanceAdmission : IDisposable
{
    private readonly ConcurrencyLimiter _limiter;
    private readonly TimeSpan _retryAfter;

    public InstanceAdmission(IOptions<AdmissionOptions> options)
    {
        _limiter = new ConcurrencyLimiter(new ConcurrencyLimiterOptions
        {
            PermitLimit = options.Value.ConcurrencyLimit,
            QueueLimit = options.Value.QueueLimit,
            QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
        });
        _retryAfter = TimeSpan.FromMilliseconds(options.Value.OverloadRetryAfterMs);
        Limiter = new SharedLimiter(_limiter);
    }

    /// <summary>
    /// When a device refused for capacity should come back: <c>Admission:OverloadRetryAfterMs</c>, spread
    /// (<see cref="RetryAdvice.Spread"/>).
    /// </summary>
    public TimeSpan RetryAfter => RetryAdvice.Spread(_retryAfter);

    /// <summary>The limiter as the global limiter's partition: never idle, never disposed by it.</summary>
    internal RateLimiter Limiter { get; }

    /// <summary>A slot for one database call, waiting in the queue like any request; dispose it to give it back.</summary>
    /// <exception cref="InstanceOverloadedException">Every slot is busy and the queue is full.</exception>
    public async ValueTask<RateLimitLease> EnterAsync(CancellationToken cancellationToken)
    {
        var lease = await _limiter.AcquireAsync(1, cancellationToken).ConfigureAwait(false);
        if (lease.IsAcquired)
        {
            return lease;
        }

        lease.Dispose();
        throw new InstanceOverloadedException(RetryAfter);
    }

    public void Dispose() => _limiter.Dispose();

    /// <summary>
    /// The partitioned limiter disposes partitions it finds idle for a while; this one must live as long
    /// as the service, so it never reports idle and ignores disposal (<see cref="InstanceAdmission"/> owns it).
    /// </summary>
    private sealed class SharedLimiter(ConcurrencyLimiter inner) : RateLimiter
    {
        public override TimeSpan? IdleDuration => null;

        public override RateLimiterStatistics? GetStatistics() => inner.GetStatistics();

        protected override RateLimitLease AttemptAcquireCore(int permitCount) => inner.AttemptAcquire(permitCount);

        protected override ValueTask<RateLimitLease> AcquireAsyncCore(int permitCount, CancellationToken cancellationToken) =>
            inner.AcquireAsync(permitCount, cancellationToken);

        protected override void Dispose(bool disposing)
        {
        }
    }
}

/// <summary>The instance is over capacity: REST answers 503 with <c>Retry-After</c>, gRPC UNAVAILABLE with a pushback.</summary>
public sealed class InstanceOverloadedException(TimeSpan retryAfter)
    : Exception("The service is over capacity; retry later.")
{
    public TimeSpan RetryAfter { get; } = retryAfter;
}
