using System.Net;
using System.Security.Claims;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
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
/// Finds the link of a presented secret at a bounded cost to a caller who is not authenticated yet: a secret
/// never issued (<see cref="KoboLinkSecrets.IsIssued"/>) is refused with no read; a link in <see cref="KoboLinkCache"/>
/// costs no read; an issued secret is read in one of <c>Kobo:LinkLookupConcurrency</c> slots outside the storage
/// pipelines (503 when none is free in time). Every refusal counts against its client address (429 past
/// <c>Kobo:RefusedSecretsPerAddress*</c>, taken atomically with the refusal); a live link is never refused for it.
/// An unknown secret and a revoked one get the same 401. Why each step: docs/kobo.md, "What a sync does".
/// </summary>
internal sealed class KoboLinkLookups : IDisposable
{
    private readonly IKoboLinkStore _links;
    private readonly KoboLinkCache _cache;
    private readonly TimeProvider _clock;
    private readonly SecretLookupLimits _limits;
    private long _storeReads;
    private byte[]? _secretKey;
    private Task<byte[]?>? _secretKeyRead;

    public KoboLinkLookups(IKoboLinkStore links, KoboLinkCache cache, IOptions<KoboOptions> options, TimeProvider clock)
    {
        _links = links;
        _cache = cache;
        _clock = clock;
        _limits = new SecretLookupLimits(options.Value);
    }

    /// <summary>How many look-ups of links have reached the store since the start (the key's one read is not counted).</summary>
    public long StoreReads => Interlocked.Read(ref _storeReads);

    public async ValueTask<KoboLinkLookup> FindAsync(string secret, IPAddress? client, CancellationToken cancellationToken)
    {
        if ((_secretKey ?? await SecretKeyAsync(cancellationToken).ConfigureAwait(false)) is not { } secretKey)
        {
            return Busy();
        }

        if (!KoboLinkSecrets.IsIssued(secret, secretKey))
        {
            return Refuse(client);
        }

        var hash = KoboLinkSecrets.Hash(secret);
        var key = Convert.ToHexString(hash);
        var now = _clock.GetUtcNow();
        // Refusals first: a link revoked here while a look-up of it was reading must not come back from the positive cache.
        if (_cache.IsRefused(key, now))
        {
            return Refuse(client);
        }

        if (_cache.TryGet(key, now, out var cached))
        {
            return new KoboLinkLookup(KoboLinkVerdict.Live, cached);
        }

        using var budget = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        budget.CancelAfter(_limits.Timeout);
        KoboLink? link;
        try
        {
            using var slot = await _limits.SlotAsync(budget.Token).ConfigureAwait(false);
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

        var readAt = _clock.GetUtcNow();
        if (link is null || link.RevokedAt is not null)
        {
            _cache.AddRefused(key, readAt);
            return Refuse(client);
        }

        List<Claim> claims =
        [
            new Claim(DeviceAuthentication.UserClaim, link.User.ToString()),
            new Claim(DeviceAuthentication.DeviceClaim, link.LinkingDeviceId),
        ];
        var principal = new ClaimsPrincipal(new DeviceIdentity(
            claims, new DeviceCaller(link.User, link.LinkingDeviceId), link.CreatedAt, DateTimeOffset.MaxValue,
            $"{KoboLinkAuthentication.AdmissionPrefix}{link.User}/{link.LinkingDeviceId}/{key[..16]}"));
        if (!_cache.IsRefused(key, readAt))
        {
            _cache.Add(key, principal, readAt);
        }

        return new KoboLinkLookup(KoboLinkVerdict.Live, principal);
    }

    public void Dispose() => _limits.Dispose();

    /// <summary>
    /// The store's link key. One read at a time for every caller (the first look-ups after a start wait on
    /// it, each for at most its own budget); null when it could not be read now, and the next caller reads again.
    /// </summary>
    private async Task<byte[]?> SecretKeyAsync(CancellationToken cancellationToken)
    {
        var read = Volatile.Read(ref _secretKeyRead);
        if (read is null || (read.IsCompleted && read.Result is null))
        {
            _ = Interlocked.CompareExchange(ref _secretKeyRead, ReadSecretKeyAsync(), read);
            read = Volatile.Read(ref _secretKeyRead)!;
        }

        try
        {
            return await read.WaitAsync(_limits.Timeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return null;
        }
    }

    private async Task<byte[]?> ReadSecretKeyAsync()
    {
        using var budget = new CancellationTokenSource(_limits.Timeout);
        try
        {
            return _secretKey = await _links.SecretKeyAsync(budget.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return null;
        }
        catch (Exception error) when (StorageFaults.IsTransient(error))
        {
            return null;
        }
    }

    private KoboLinkLookup Refuse(IPAddress? client) =>
        _limits.CountRefusal(client) is { } retryAfter
            ? new(KoboLinkVerdict.TooManyRefused, RetryAfter: retryAfter)
            : new(KoboLinkVerdict.Refused);

    private KoboLinkLookup Busy() => new(KoboLinkVerdict.Busy, RetryAfter: _limits.Timeout);
}
