using System.Collections.Concurrent;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Values kept until they expire, by an ordinal key that can be looked up by its characters (a hit
/// allocates nothing). Bounded to <c>capacity</c> entries in two generations of half of it each: new
/// entries go to the current one, and when it is full it becomes the previous one and the previous
/// one is dropped. So an entry lives at least half the capacity's adds (a device's session, when
/// most keys are new: a fleet's devices each sync about hourly), and the bound costs one table
/// allocated at its full size per generation, where emptying one table and growing it again
/// re-allocated and copied it about a dozen times per fill. An expired entry found is dropped. Each
/// generation counts its entries apart: <see cref="ConcurrentDictionary{TKey, TValue}.Count"/> takes
/// every one of the dictionary's locks.
/// </summary>
internal sealed class ExpiringCache<TValue>
{
    private readonly int _generationSize;
    private readonly Lock _rotation = new();
    private Generation _current;
    private Generation _previous;

    public ExpiringCache(int capacity)
    {
        _generationSize = Math.Max(1, capacity / 2);
        _current = new Generation(_generationSize);
        _previous = new Generation(1);
    }

    public bool TryGet(ReadOnlySpan<char> key, DateTimeOffset now, out TValue value) =>
        Volatile.Read(ref _current).TryGet(key, now, out value) || Volatile.Read(ref _previous).TryGet(key, now, out value);

    /// <summary>Whether a value lives for <paramref name="key"/> now.</summary>
    public bool Contains(ReadOnlySpan<char> key, DateTimeOffset now) => TryGet(key, now, out _);

    public void Set(string key, TValue value, DateTimeOffset validTo)
    {
        var current = Volatile.Read(ref _current);
        if (current.Count >= _generationSize)
        {
            lock (_rotation)
            {
                if (ReferenceEquals(current, _current))
                {
                    Volatile.Write(ref _previous, current);
                    Volatile.Write(ref _current, new Generation(_generationSize));
                }
            }

            current = Volatile.Read(ref _current);
        }

        current.Set(key, value, validTo);
    }

    public void Remove(string key)
    {
        Volatile.Read(ref _current).Remove(key);
        Volatile.Read(ref _previous).Remove(key);
    }

    private sealed class Generation
    {
        private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)> _entries;
        private readonly ConcurrentDictionary<string, (TValue Value, DateTimeOffset ValidTo)>.AlternateLookup<ReadOnlySpan<char>> _byChars;

        // About the entries held: a race may count one more or fewer, never more than the adds.
        private int _count;

        public Generation(int size)
        {
            _entries = new(Environment.ProcessorCount, size, StringComparer.Ordinal);
            _byChars = _entries.GetAlternateLookup<ReadOnlySpan<char>>();
        }

        public int Count => Volatile.Read(ref _count);

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

        public void Set(string key, TValue value, DateTimeOffset validTo)
        {
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
}
