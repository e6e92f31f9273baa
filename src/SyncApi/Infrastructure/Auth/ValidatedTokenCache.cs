using System.Collections.Concurrent;
using System.Security.Claims;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Tokens that passed validation, with their principal, until the token expires. Bounded: when
/// full it is emptied and refills from live traffic, which costs one validation per device.
/// </summary>
internal sealed class ValidatedTokenCache
{
    public const int Capacity = 100_000;
    private readonly ConcurrentDictionary<string, Entry> _entries;

    // Looked up by the token's characters inside the Authorization header, so a hit allocates nothing.
    private readonly ConcurrentDictionary<string, Entry>.AlternateLookup<ReadOnlySpan<char>> _byChars;

    public ValidatedTokenCache()
    {
        _entries = new ConcurrentDictionary<string, Entry>(StringComparer.Ordinal);
        _byChars = _entries.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    public bool TryGet(ReadOnlySpan<char> token, DateTimeOffset now, out ClaimsPrincipal principal)
    {
        if (_byChars.TryGetValue(token, out var entry))
        {
            if (entry.ValidTo > now)
            {
                principal = entry.Principal;
                return true;
            }

            _byChars.TryRemove(token, out _);
        }

        principal = null!;
        return false;
    }

    public void Add(string token, ClaimsPrincipal principal, DateTime validToUtc, DateTimeOffset now)
    {
        var validTo = new DateTimeOffset(DateTime.SpecifyKind(validToUtc, DateTimeKind.Utc));
        if (validTo <= now)
        {
            return;
        }

        if (_entries.Count >= Capacity)
        {
            _entries.Clear();
        }

        _entries[token] = new Entry(principal, validTo);
    }

    private sealed record Entry(ClaimsPrincipal Principal, DateTimeOffset ValidTo);
}
