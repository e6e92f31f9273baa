using System.Net;
using System.Net.Sockets;
using System.Security.Claims;
using System.Threading.RateLimiting;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>What presenting a secret came to.</summary>
internal enum KoboLinkVerdict
{
    /// <summary>A live link: <see cref="KoboLinkLookup.Principal"/> is its device's.</summary>
    Live,

    /// <summary>No live link (unknown or revoked: one answer for both).</summary>
    Refused,

    /// <summary>This client address presented too many refused secrets: 429 until its allowance comes back.</summary>
    TooManyRefused,

    /// <summary>No look-up could be made now (all slots busy, or the store too slow): 503, nothing is said of the secret.</summary>
    Busy,
}

internal readonly record struct KoboLinkLookup(KoboLinkVerdict Verdict, ClaimsPrincipal? Principal = null, TimeSpan RetryAfter = default);

/// <summary>
/// Finds the link of a presented secret, so that a caller who is not authenticated yet costs no database
/// work beyond a bounded, budgeted, remembered look-up:
/// <list type="number">
/// <item>the cache first (<see cref="KoboLinkCache"/>): a live link, or a secret refused lately, costs no read;</item>
/// <item>a client address that presented too many refused secrets (<c>Kobo:RefusedSecretsPerAddress*</c>, a
/// token bucket per IPv4 address or IPv6 /64) is answered 429 before any read;</item>
/// <item>a read runs in one of <c>Kobo:LinkLookupConcurrency</c> slots, with <c>Kobo:LinkLookupQueue</c>
/// waiting; beyond that, or past <c>Kobo:LinkLookupTimeoutMs</c>, it is answered 503 at once. These
/// reads are outside the storage pipelines: their failures never count against the circuit the
/// devices' own calls share, so a flood of made-up secrets cannot open it.</item>
/// </list>
/// An unknown secret and a revoked one take the same path: one read of the same row by key the first
/// time, then the refusal cache, and the same 401. Timing tells nothing of which it was.
/// </summary>
internal sealed class KoboLinkLookups : IDisposable
{
    private readonly IKoboLinkStore _links;
    private readonly KoboLinkCache _cache;
    private readonly TimeProvider _clock;
    private readonly ConcurrencyLimiter _slots;
    private readonly PartitionedRateLimiter<string> _refusals;
    private readonly TimeSpan _timeout;
    private readonly TimeSpan _refill;
    private long _storeReads;

    public KoboLinkLookups(IKoboLinkStore links, KoboLinkCache cache, IOptions<KoboOptions> options, TimeProvider clock)
    {
        _links = links;
        _cache = cache;
        _clock = clock;
        var o = options.Value;
        _timeout = TimeSpan.FromMilliseconds(o.LinkLookupTimeoutMs);
        _slots = new ConcurrencyLimiter(new ConcurrencyLimiterOptions
        {
            PermitLimit = o.LinkLookupConcurrency,
            QueueLimit = o.LinkLookupQueue,
            QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
        });
        _refill = TimeSpan.FromMinutes(1) / o.RefusedSecretsPerAddressPerMinute;
        var bucket = new TokenBucketRateLimiterOptions
        {
            TokenLimit = o.RefusedSecretsPerAddressBurst,
            TokensPerPeriod = 1,
            ReplenishmentPeriod = _refill,
            QueueLimit = 0,
            // No timer per address: the partitioned limiter's own heartbeat refills every bucket, so a
            // flood from many addresses costs a bucket each, not a timer each.
            AutoReplenishment = false,
        };
        // An idle, full bucket is dropped by the partitioned limiter: the partitions are the addresses seen lately.
        _refusals = PartitionedRateLimiter.Create<string, string>(address => RateLimitPartition.GetTokenBucketLimiter(address, _ => bucket));
    }

    /// <summary>How many look-ups have reached the store since the start.</summary>
    public long StoreReads => Interlocked.Read(ref _storeReads);

    public async ValueTask<KoboLinkLookup> FindAsync(string secret, IPAddress? client, CancellationToken cancellationToken)
    {
        var hash = KoboLinkSecrets.Hash(secret);
        var key = Convert.ToHexString(hash);
        var now = _clock.GetUtcNow();
        var address = AddressKey(client);
        // Refusals first: a link revoked here while a look-up of it was reading must not come back from the positive cache.
        if (_cache.IsRefused(key, now))
        {
            return Refuse(address);
        }

        if (_cache.TryGet(key, now, out var cached))
        {
            return new KoboLinkLookup(KoboLinkVerdict.Live, cached);
        }

        // Looked at, not taken: a look-up that finds a live link costs the address nothing. (A lease for
        // zero permits would not do: the bucket refills in fractions, and any fraction grants it.)
        if (_refusals.GetStatistics(address) is { CurrentAvailablePermits: < 1 })
        {
            return new KoboLinkLookup(KoboLinkVerdict.TooManyRefused, RetryAfter: _refill);
        }

        using var budget = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        budget.CancelAfter(_timeout);
        KoboLink? link;
        try
        {
            using var slot = await _slots.AcquireAsync(1, budget.Token).ConfigureAwait(false);
            if (!slot.IsAcquired)
            {
                return Busy();
            }

            Interlocked.Increment(ref _storeReads);
            link = await _links.LookUpAsync(hash, budget.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return Busy();
        }
        catch (Exception error) when (StorageFaults.IsTransient(error))
        {
            return Busy();
        }

        now = _clock.GetUtcNow();
        if (link is null || link.RevokedAt is not null)
        {
            _cache.AddRefused(key, now);
            return Refuse(address);
        }

        List<Claim> claims =
        [
            new Claim(DeviceAuthentication.UserClaim, link.User.ToString()),
            new Claim(DeviceAuthentication.DeviceClaim, link.LinkingDeviceId),
        ];
        var principal = new ClaimsPrincipal(new DeviceIdentity(
            claims, new DeviceCaller(link.User, link.LinkingDeviceId), link.CreatedAt, DateTimeOffset.MaxValue,
            $"{KoboLinkAuthentication.AdmissionPrefix}{link.User}/{link.LinkingDeviceId}/{key[..16]}"));
        if (!_cache.IsRefused(key, now))
        {
            _cache.Add(key, principal, now);
        }

        return new KoboLinkLookup(KoboLinkVerdict.Live, principal);
    }

    public void Dispose()
    {
        _slots.Dispose();
        _refusals.Dispose();
    }

    private KoboLinkLookup Refuse(string address)
    {
        using var allowance = _refusals.AttemptAcquire(address, 1);
        return allowance.IsAcquired ? new KoboLinkLookup(KoboLinkVerdict.Refused) : TooMany(allowance);
    }

    private KoboLinkLookup TooMany(RateLimitLease lease) =>
        new(KoboLinkVerdict.TooManyRefused, RetryAfter: lease.TryGetMetadata(MetadataName.RetryAfter, out var after) && after > TimeSpan.Zero ? after : _refill);

    private KoboLinkLookup Busy() => new(KoboLinkVerdict.Busy, RetryAfter: _timeout);

    /// <summary>The partition of a client: its IPv4 address, or its IPv6 /64 (one subscriber's usual share); "" when unknown (in process).</summary>
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
