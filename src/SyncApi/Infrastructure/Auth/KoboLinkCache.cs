using System.Collections.Concurrent;
using System.Security.Claims;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Links found live in the store, by secret hash (hex), for <see cref="Lifetime"/>: a device's calls
/// during one sync look its link up once. A revocation still applies at once on this instance and
/// within <c>Sync:RevocationRefreshSeconds</c> on the others, because every request checks the
/// cached link against <see cref="DeviceRevocationList"/>; an entry outlives no revocation in that
/// list (which keeps them for the longest token lifetime), so once it expires the store says
/// "revoked". Bounded: when full it is emptied and refills from live traffic.
/// </summary>
internal sealed class KoboLinkCache
{
    public const int Capacity = 10_000;
    public static readonly TimeSpan Lifetime = TimeSpan.FromMinutes(1);

    private readonly ConcurrentDictionary<string, Entry> _entries = new(StringComparer.Ordinal);

    public bool TryGet(string hashHex, DateTimeOffset now, out ClaimsPrincipal principal)
    {
        if (_entries.TryGetValue(hashHex, out var entry))
        {
            if (entry.ValidTo > now)
            {
                principal = entry.Principal;
                return true;
            }

            _entries.TryRemove(hashHex, out _);
        }

        principal = null!;
        return false;
    }

    public void Add(string hashHex, ClaimsPrincipal principal, DateTimeOffset now)
    {
        if (_entries.Count >= Capacity)
        {
            _entries.Clear();
        }

        _entries[hashHex] = new Entry(principal, now + Lifetime);
    }

    private sealed record Entry(ClaimsPrincipal Principal, DateTimeOffset ValidTo);
}
