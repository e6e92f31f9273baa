using System.Security.Claims;
using Kobo.Sync.Domain.KoboProtocol;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// What the store said of a secret hash (hex), kept so that a device's calls during one sync, and a
/// secret presented again, cost no database read:
/// <list type="bullet">
/// <item>a live link, for <see cref="Lifetime"/>. Every request still checks it against
/// <see cref="DeviceRevocationList"/>, and a revoked link is dropped (<see cref="Revoke"/>) at once on the
/// instance that revoked it and within <c>Sync:RevocationRefreshSeconds</c> on the others, which poll
/// the store's link revocations;</item>
/// <item>a refused secret (no such link, or a revoked one: both answered alike), for <see cref="RefusalLifetime"/>.
/// A hash the store did not know cannot become a link later (a link's secret is 32 random bytes,
/// shown only after its row is committed), and a revoked link stays revoked.</item>
/// </list>
/// Each kind is bounded (<see cref="ExpiringCache{TValue}"/>): its older half is dropped as it fills, and refills from live traffic.
/// </summary>
internal sealed class KoboLinkCache : IRevokedKoboLinks
{
    public const int Capacity = 10_000;
    public const int RefusalCapacity = 50_000;
    public static readonly TimeSpan Lifetime = TimeSpan.FromMinutes(1);
    public static readonly TimeSpan RefusalLifetime = TimeSpan.FromMinutes(10);

    private readonly ExpiringCache<ClaimsPrincipal> _entries = new(Capacity);
    private readonly ExpiringCache<bool> _refused = new(RefusalCapacity);

    public bool TryGet(string hashHex, DateTimeOffset now, out ClaimsPrincipal principal) => _entries.TryGet(hashHex, now, out principal);

    /// <summary>Whether the store refused this hash lately (unknown or revoked).</summary>
    public bool IsRefused(string hashHex, DateTimeOffset now) => _refused.Contains(hashHex, now);

    public void Add(string hashHex, ClaimsPrincipal principal, DateTimeOffset now) => _entries.Set(hashHex, principal, now + Lifetime);

    /// <summary>Remembers that the store has no live link for this hash.</summary>
    public void AddRefused(string hashHex, DateTimeOffset now) => _refused.Set(hashHex, true, now + RefusalLifetime);

    /// <summary>A link was revoked: it is refused from now on.</summary>
    public void Revoke(string hashHex, DateTimeOffset now)
    {
        AddRefused(hashHex, now);
        _entries.Remove(hashHex);
    }

    void IRevokedKoboLinks.Revoke(byte[] secretHash, DateTimeOffset revokedAt) => Revoke(Convert.ToHexString(secretHash), revokedAt);
}
