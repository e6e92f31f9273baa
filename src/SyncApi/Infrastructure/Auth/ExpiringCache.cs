using System.Collections.Concurrent;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Values kept until they expire, by an ordinal key that can be looked up by its characters (a hit
/// allocates nothing). Bounded: when it holds <c>capacity</c> entries it is emptied and refills from
/// live traffic, which costs one look-up at the source per key; an expired entry found is dropped.
/// </summary>
internal sealed class ExpiringCache<TValue>
{
    private readonly int _capacity;
    private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)> _entries = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)>.AlternateLookup<ReadOnlySpan<char>> _byChars;

    public ExpiringCache(int capacity)
    {
        _capacity = capacity;
        _byChars = _entries.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    public bool TryGet(ReadOnlySpan<char> key, DateTimeOffset now, out TValue value)
    {
        if (_byChars.TryGetValue(key, out var entry))
        {
            if (entry.ValidTo > now)
            {
                value = entry.Value;
                return true;
            }

            _byChars.TryRemove(key, out _);
        }

        value = default!;
        return false;
    }

    /// <summary>Whether a value lives for <paramref name="key"/> now.</summary>
    public bool Contains(ReadOnlySpan<char> key, DateTimeOffset now) => TryGet(key, now, out _);

    public void Set(string key, TValue value, DateTimeOffset validTo)
    {
        if (_entries.Count >= _capacity)
        {
            _entries.Clear();
        }

        _entries[key] = (value, validTo);
    }

    public void Remove(string key) => _entries.TryRemove(key, out _);
}
