using System.Collections.Concurrent;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// REST long-polls that ended with nothing new, remembered for a short while so that the device's next
/// wait (it comes straight back with the same token) starts waiting without a pull: an idle waiting
/// device then costs the database nothing. A remembered wait is forgotten, and the next wait pulls, as
/// soon as a change of its user is notified, when the listener stops listening (notifications may have
/// been lost), after <see cref="Lifetime"/>, and once <see cref="RecordEvery"/> has passed since the
/// device's last pull was recorded (so the device list's "last synced" stays within that of the truth).
/// One entry per device, at most <c>Sync:MaxWaiters</c> on the instance; a device that comes back to
/// another instance simply pulls there.
/// </summary>
public sealed class QuietWaits : IDisposable
{
    /// <summary>How long after its wait ended a device may come back and resume without a pull.</summary>
    public static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(30);

    /// <summary>A device that only waits still has its pull recorded (one read and one write) this often.</summary>
    public static readonly TimeSpan RecordEvery = TimeSpan.FromMinutes(15);

    private readonly ConcurrentDictionary<long, UserQuiet> _byUser = new();
    private readonly TimeProvider _clock;
    private readonly int _max;
    private readonly ITimer _sweeper;
    private int _count;

    // Odd while the change listener listens; moves on each time it starts or stops listening, so a wait
    // remembered under one period of listening is never resumed under another.
    private long _listening;

    public QuietWaits(IOptions<SyncOptions> options, TimeProvider clock)
    {
        _clock = clock;
        _max = options.Value.MaxWaiters;
        _sweeper = clock.CreateTimer(_ => Sweep(), null, Lifetime, Lifetime);
    }

    /// <summary>Entries held now.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>The listening period now, or null while the listener does not listen; take it before a pull.</summary>
    public long? ListeningPeriod => Volatile.Read(ref _listening) is var period && (period & 1) == 1 ? period : null;

    /// <summary>The change listener listens (and has re-checked the waiting devices).</summary>
    public void ListenerUp()
    {
        if ((Volatile.Read(ref _listening) & 1) == 0)
        {
            Interlocked.Increment(ref _listening);
        }
    }

    /// <summary>The change listener lost its connection: notifications may be lost from here on.</summary>
    public void ListenerLost()
    {
        if ((Volatile.Read(ref _listening) & 1) == 1)
        {
            Interlocked.Increment(ref _listening);
        }
    }

    /// <summary>
    /// A wait of <paramref name="caller"/> ended with nothing after its pull, taken in
    /// <paramref name="period"/>, caught up through <paramref name="caughtUpThrough"/> and answered
    /// <paramref name="token"/>. Not remembered if <paramref name="waiter"/> heard of a later change
    /// meanwhile, or the listener is no longer in that period.
    /// </summary>
    public void Remember(
        DeviceCaller caller, string token, long caughtUpThrough, long? period, DateTimeOffset recordedAt, ChangeWaiter waiter)
    {
        if (period is null || Volatile.Read(ref _count) >= _max)
        {
            return;
        }

        while (true)
        {
            var group = _byUser.GetOrAdd(caller.User.Value, static _ => new UserQuiet());
            lock (group)
            {
                if (group.Retired)
                {
                    continue;
                }

                // Under the group's lock: a notification either reached the waiter before this check, or
                // its Forget (which follows it) runs after this entry is in and removes it.
                if (waiter.HeardAbove(caughtUpThrough) || Volatile.Read(ref _listening) != period)
                {
                    return;
                }

                var entry = new QuietWait(token, caughtUpThrough, period.Value, _clock.GetUtcNow() + Lifetime, recordedAt);
                if (group.Devices.TryAdd(caller.DeviceId, entry))
                {
                    Interlocked.Increment(ref _count);
                }
                else
                {
                    group.Devices[caller.DeviceId] = entry;
                }

                return;
            }
        }
    }

    /// <summary>
    /// The remembered wait of <paramref name="caller"/> for exactly <paramref name="token"/>, taken (a wait
    /// resumes once), if it still stands; null when the device must pull.
    /// </summary>
    public QuietWait? TryResume(DeviceCaller caller, string token)
    {
        if (!_byUser.TryGetValue(caller.User.Value, out var group))
        {
            return null;
        }

        QuietWait? entry;
        lock (group)
        {
            if (!group.Devices.Remove(caller.DeviceId, out entry))
            {
                return null;
            }
        }

        Interlocked.Decrement(ref _count);
        var now = _clock.GetUtcNow();
        return entry.Token == token && entry.Period == Volatile.Read(ref _listening)
            && now < entry.Expires && now - entry.RecordedAt < RecordEvery
            ? entry
            : null;
    }

    /// <summary>A change of <paramref name="user"/> was notified: its devices pull on their next wait.</summary>
    public void Forget(long user)
    {
        if (!_byUser.TryGetValue(user, out var group))
        {
            return;
        }

        int removed;
        lock (group)
        {
            removed = group.Devices.Count;
            group.Devices.Clear();
        }

        Interlocked.Add(ref _count, -removed);
    }

    public void Dispose() => _sweeper.Dispose();

    /// <summary>Drops expired entries and empty users (every <see cref="Lifetime"/>).</summary>
    public void Sweep()
    {
        var now = _clock.GetUtcNow();
        foreach (var (user, group) in _byUser)
        {
            lock (group)
            {
                var removed = 0;
                foreach (var (device, entry) in group.Devices)
                {
                    if (now >= entry.Expires && group.Devices.Remove(device))
                    {
                        removed++;
                    }
                }

                Interlocked.Add(ref _count, -removed);
                if (group.Devices.Count == 0)
                {
                    group.Retired = true;
                    _byUser.TryRemove(new KeyValuePair<long, UserQuiet>(user, group));
                }
            }
        }
    }

    private sealed class UserQuiet
    {
        public Dictionary<string, QuietWait> Devices { get; } = new(1, StringComparer.Ordinal);

        public bool Retired { get; set; }
    }
}

/// <summary>
/// A wait that ended with nothing: the token it answered, the change number its pull was caught up
/// through, the listening period of that pull, when it may no longer resume, and when the device's pull
/// was last recorded.
/// </summary>
public sealed record QuietWait(string Token, long CaughtUpThrough, long Period, DateTimeOffset Expires, DateTimeOffset RecordedAt);
