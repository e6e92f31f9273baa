using System.Security.Claims;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Tokens that passed validation, with their principal, until the token expires. Bounded
/// (<see cref="ExpiringCache{TValue}"/>): when full it is emptied and refills from live traffic, which costs one validation per device.
/// </summary>
internal sealed class ValidatedTokenCache
{
    public const int Capacity = 100_000;
    private readonly ExpiringCache<ClaimsPrincipal> _entries = new(Capacity);

    // Looked up by the token's characters inside the Authorization header, so a hit allocates nothing.
    public bool TryGet(ReadOnlySpan<char> token, DateTimeOffset now, out ClaimsPrincipal principal) => _entries.TryGet(token, now, out principal);

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
