using System.Net;
using System.Security.Claims;
using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>What presenting a KOReader user name and key came to.</summary>
internal enum KoreaderLoginVerdict
{
    Live,

    /// <summary>No live login with that key (unknown name, wrong key, revoked: one answer for all).</summary>
    Refused,

    /// <summary>This client address was refused too often: 429 until its allowance comes back.</summary>
    TooManyRefused,

    /// <summary>No check could be made now: 503.</summary>
    Busy,
}

internal readonly record struct KoreaderLoginLookup(
    KoreaderLoginVerdict Verdict, ClaimsPrincipal? Principal = null, TimeSpan RetryAfter = default);

/// <summary>
/// Checks a KOReader device's user name and key so that a caller who is not authenticated yet costs a
/// bounded amount of work, as <see cref="KoboLinkLookups"/> does for Kobo links, with the same settings
/// (<c>Kobo:LinkLookup*</c>, <c>Kobo:RefusedSecretsPerAddress*</c>):
/// <list type="number">
/// <item>a pair checked lately is answered from memory: a live login for <see cref="Lifetime"/> (the plugin
/// sends its key on every call), a refused pair for <see cref="RefusalLifetime"/>. A login revoked on this
/// instance is refused at once; on the others within <see cref="Lifetime"/>;</item>
/// <item>otherwise the login is read and the key checked against its slow hash (<see cref="KoreaderKeys"/>;
/// an unknown name is checked against a decoy, so it costs what a wrong key does), in one of
/// <c>Kobo:LinkLookupConcurrency</c> slots, within <c>Kobo:LinkLookupTimeoutMs</c>: beyond that, 503;</item>
/// <item>every refusal counts against the client address (a token bucket per IPv4 address or IPv6 /64):
/// past it, that address's refusals are 429, and while its allowance is spent no key it presents is checked
/// against a hash at all (a pair already known to be live is still let in). A live login is never counted.</item>
/// </list>
/// </summary>
internal sealed class KoreaderLogins : IRevokedKoreaderLogins, IDisposable
{
    public static readonly TimeSpan Lifetime = TimeSpan.FromMinutes(1);
    public static readonly TimeSpan RefusalLifetime = TimeSpan.FromMinutes(10);

    private readonly IKoreaderStore _store;
    private readonly TimeProvider _clock;
    private readonly SecretLookupLimits _limits;
    private readonly ExpiringCache<ClaimsPrincipal> _live = new(KoboLinkCache.Capacity);
    private readonly ExpiringCache<bool> _refused = new(KoboLinkCache.RefusalCapacity);
    private readonly ExpiringCache<bool> _revokedNames = new(KoboLinkCache.Capacity);
    private long _checks;

    public KoreaderLogins(IKoreaderStore store, IOptions<KoboOptions> options, TimeProvider clock)
    {
        _store = store;
        _clock = clock;
        _limits = new SecretLookupLimits(options.Value);
    }

    /// <summary>How many keys were checked against a stored hash since the start.</summary>
    public long HashChecks => Interlocked.Read(ref _checks);

    public async ValueTask<KoreaderLoginLookup> FindAsync(
        string username, string key, IPAddress? client, CancellationToken cancellationToken)
    {
        var entry = username + "\n" + Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(key)));
        var now = _clock.GetUtcNow();
        if (_refused.Contains(entry, now) || _revokedNames.Contains(username, now))
        {
            return Refuse(client);
        }

        if (_live.TryGet(entry, now, out var cached))
        {
            return new KoreaderLoginLookup(KoreaderLoginVerdict.Live, cached);
        }

        // An address with no allowance of refusals left costs no slow hash: its key is not checked until the allowance comes back.
        if (_limits.RefusalsSpent(client))
        {
            return Refuse(client);
        }

        using var budget = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        budget.CancelAfter(_limits.Timeout);
        KoreaderCredential? login;
        bool matches;
        try
        {
            using var slot = await _limits.SlotAsync(budget.Token).ConfigureAwait(false);
            if (!slot.IsAcquired)
            {
                return Busy();
            }

            login = await _store.LookUpCredentialAsync(username, budget.Token).ConfigureAwait(false);
            Interlocked.Increment(ref _checks);
            matches = KoreaderKeys.Verify(key, login?.KeyHash ?? KoreaderKeys.Decoy) && login is not null;
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
        if (!matches || login!.RevokedAt is not null)
        {
            _refused.Set(entry, true, readAt + RefusalLifetime);
            return Refuse(client);
        }

        List<Claim> claims =
        [
            new Claim(DeviceAuthentication.UserClaim, login.User.ToString()),
            new Claim(DeviceAuthentication.DeviceClaim, login.LinkingDeviceId),
        ];
        var principal = new ClaimsPrincipal(new DeviceIdentity(
            claims, new DeviceCaller(login.User, login.LinkingDeviceId), login.CreatedAt, DateTimeOffset.MaxValue,
            $"{KoreaderAuthentication.AdmissionPrefix}{login.User}/{login.LinkingDeviceId}/{username}"));
        if (!_revokedNames.Contains(username, readAt))
        {
            _live.Set(entry, principal, readAt + Lifetime);
        }

        return new KoreaderLoginLookup(KoreaderLoginVerdict.Live, principal);
    }

    /// <summary>A login was revoked here: it is refused from now on, whatever key is presented.</summary>
    public void Revoke(string username) => _revokedNames.Set(username, true, _clock.GetUtcNow() + RefusalLifetime);

    public void Dispose() => _limits.Dispose();

    private KoreaderLoginLookup Refuse(IPAddress? client) =>
        _limits.CountRefusal(client) is { } retryAfter
            ? new(KoreaderLoginVerdict.TooManyRefused, RetryAfter: retryAfter)
            : new(KoreaderLoginVerdict.Refused);

    private KoreaderLoginLookup Busy() => new(KoreaderLoginVerdict.Busy, RetryAfter: _limits.Timeout);
}
