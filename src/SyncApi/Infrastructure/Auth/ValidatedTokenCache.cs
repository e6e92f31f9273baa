using System.Security.Claims;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Tokens that passed validation, with their principal, until the token expires. Bounded
/// (<see cref="ExpiringCache{TValue}"/>): its older half is dropped as it fills, which costs a dropped device one validation more.
/// The bound covers the devices of the last minute or so, which is what a cache can give a fleet whose
/// devices each sync once an hour: a device's session (its pages, its push, its second pull). An entry
/// holds about 1.8 KB of managed heap (the token and its principal); at 100,000 entries, a release-gate
/// run of distinct devices at 400 syncs/s grew the heap by 190 MB in four minutes, and the longer
/// collections of that heap pushed storage calls past their deadline (docs/performance.md, "The release gate").
/// </summary>
internal sealed class ValidatedTokenCache
{
    public const int Capacity = 20_000;
    private readonly ExpiringCache<ClaimsPrincipal> _entries = new(Capacity);

    // Looked up by the token's characters inside the Authorization header, so a hit allocates nothing.
    public bool TryGet(
        ReadOnlySpan<char> token, DateTimeOffset now, out ClaimsPrincipal principal) => _entries.TryGet(token, now, out principal);

    public void Add(string token, ClaimsPrincipal principal, DateTime validToUtc, DateTimeOffset now)
    {
        var validTo = new DateTimeOffset(DateTime.SpecifyKind(validToUtc, DateTimeKind.Utc));
        if (validTo <= now)
        {
            return;
        }

        _entries.Set(token, principal, validTo);
    }
}
