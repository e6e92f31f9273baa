using System.Net;
using System.Net.Sockets;
using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The limits a look-up of a presented secret (a Kobo link's, a KOReader login's) runs under before its
/// caller is authenticated: one of <c>Kobo:LinkLookupConcurrency</c> slots with <c>Kobo:LinkLookupQueue</c>
/// waiting, within <c>Kobo:LinkLookupTimeoutMs</c>; and a token bucket of refusals per client address
/// (<c>Kobo:RefusedSecretsPerAddress*</c>, per IPv4 address or IPv6 /64). Each front keeps its own.
/// </summary>
internal sealed class SecretLookupLimits : IDisposable
{
    private readonly ConcurrencyLimiter _slots;
    private readonly PartitionedRateLimiter<string> _refusals;

    public SecretLookupLimits(KoboOptions options)
    {
        Timeout = TimeSpan.FromMilliseconds(options.LinkLookupTimeoutMs);
        _slots = new ConcurrencyLimiter(new ConcurrencyLimiterOptions
        {
            PermitLimit = options.LinkLookupConcurrency,
            QueueLimit = options.LinkLookupQueue,
            QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
        });
        Refill = TimeSpan.FromMinutes(1) / options.RefusedSecretsPerAddressPerMinute;
        var bucket = new TokenBucketRateLimiterOptions
        {
            TokenLimit = options.RefusedSecretsPerAddressBurst,
            TokensPerPeriod = 1,
            ReplenishmentPeriod = Refill,
            QueueLimit = 0,
            // No timer per address: the partitioned limiter's own heartbeat refills every bucket, so a
            // flood from many addresses costs a bucket each, not a timer each.
            AutoReplenishment = false,
        };
        // An idle, full bucket is dropped by the partitioned limiter: the partitions are the addresses seen lately.
        _refusals = PartitionedRateLimiter.Create<string, string>(
            address => RateLimitPartition.GetTokenBucketLimiter(address, _ => bucket));
    }

    /// <summary>How long a look-up may take, waiting for its slot included; the Retry-After of a busy answer.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>How often a client address gets one refusal back.</summary>
    public TimeSpan Refill { get; }

    /// <summary>A look-up slot; not acquired when the queue is full. Dispose it when the look-up ends.</summary>
    public ValueTask<RateLimitLease> SlotAsync(CancellationToken cancellationToken) => _slots.AcquireAsync(1, cancellationToken);

    /// <summary>Whether <paramref name="client"/> has no refusal left in its allowance now (nothing is counted).</summary>
    public bool RefusalsSpent(IPAddress? client) => _refusals.GetStatistics(AddressKey(client))?.CurrentAvailablePermits <= 0;

    /// <summary>
    /// Counts one refusal against <paramref name="client"/>, atomically: null when its allowance held it,
    /// otherwise how long until the allowance comes back (the answer is then 429).
    /// </summary>
    public TimeSpan? CountRefusal(IPAddress? client)
    {
        using var allowance = _refusals.AttemptAcquire(AddressKey(client), 1);
        return allowance.IsAcquired ? null
            : allowance.TryGetMetadata(MetadataName.RetryAfter, out var after) && after > TimeSpan.Zero ? after : Refill;
    }

    public void Dispose()
    {
        _slots.Dispose();
        _refusals.Dispose();
    }

    /// <summary>
    /// The partition of a client: its IPv4 address, or its IPv6 /64 (one subscriber's usual share); "" when unknown (in process).
    /// </summary>
    internal static string AddressKey(IPAddress? client)
    {
        if (client is null)
        {
            return string.Empty;
        }

        if (client.IsIPv4MappedToIPv6)
        {
            client = client.MapToIPv4();
        }

        if (client.AddressFamily != AddressFamily.InterNetworkV6)
        {
            return client.ToString();
        }

        Span<byte> bytes = stackalloc byte[16];
        client.TryWriteBytes(bytes, out _);
        bytes[8..].Clear();
        return new IPAddress(bytes).ToString() + "/64";
    }
}
