using System.Collections.Concurrent;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Values kept until they expire, by an ordinal key that can be looked up by its characters (a hit
/// allocates nothing). Bounded: when it holds <c>capacity</c> entries it is emptied and refills from
/// live traffic, which costs one look-up at the source per key; an expired entry found is dropped.
/// The entries are counted apart: <see cref="ConcurrentDictionary{TKey, TValue}.Count"/> takes every one of
/// the dictionary's locks (up to 1,024 once it has grown), which on each new key cost more than the
/// key's own work when most keys are new (a fleet's devices, each syncing about hourly).
/// </summary>
internal sealed class ExpiringCache<TValue>
{
    private readonly int _capacity;
    private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)> _entries = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)>.AlternateLookup<ReadOnlySpan<char>> _byChars;

    // About the entries held: a race may count one more or fewer until the next clearing, never more than the adds.
    private int _count;

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

            if (_byChars.TryRemove(key, out _))
            {
                Interlocked.Decrement(ref _count);
            }
        }

        value = default!;
        return false;
    }

    /// <summary>Whether a value lives for <paramref name="key"/> now.</summary>
    public bool Contains(ReadOnlySpan<char> key, DateTimeOffset now) => TryGet(key, now, out _);

    public void Set(string key, TValue value, DateTimeOffset validTo)
    {
        if (Volatile.Read(ref _count) >= _capacity)
        {
            _entries.Clear();
            Volatile.Write(ref _count, 0);
        }

        if (_entries.TryAdd(key, (value, validTo)))
        {
            Interlocked.Increment(ref _count);
        }
        else
        {
            _entries[key] = (value, validTo);
        }
    }

    public void Remove(string key)
    {
        if (_entries.TryRemove(key, out _))
        {
            Interlocked.Decrement(ref _count);
        }
    }
}
