using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// The devices waiting for changes on this instance, grouped by user, within two budgets:
/// <c>Sync:MaxWaiters</c> for the instance and <c>Sync:MaxWaitersPerUser</c> for one user. A waiter
/// holds no database connection and no admission slot: only a few small objects and, while it sleeps,
/// a timer. <see cref="Notify"/> (from the change listener) wakes only the waiters of that user whose
/// last pull is behind the notified change number; one notification wakes each of them once, however
/// many arrive while it re-checks, so a burst of pushes costs each waiting device one pull.
/// </summary>
public sealed class ChangeWaiters
{
    private readonly ConcurrentDictionary<long, UserWaiters> _byUser = new();
    private readonly int _maxWaiters;
    private readonly int _maxPerUser;
    private readonly SyncMetrics? _metrics;
    private int _count;
    private volatile bool _stopping;

    /// <param name="revocations">When given, a revocation wakes the user's waiting devices to re-check (<see cref="Recheck"/>).</param>
    public ChangeWaiters(IOptions<SyncOptions> options, SyncMetrics? metrics = null, DeviceRevocationList? revocations = null)
    {
        _maxWaiters = options.Value.LivePull ? options.Value.MaxWaiters : 0;
        _maxPerUser = options.Value.MaxWaitersPerUser;
        _metrics = metrics;
        if (revocations is not null)
        {
            revocations.Revoked += Recheck;
        }
    }

    /// <summary>Devices waiting (or registered to wait) on this instance now.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>The users with at least one waiting device (a snapshot).</summary>
    public IReadOnlyCollection<long> Users => _byUser.Keys.ToArray();

    /// <summary>
    /// Registers a device of <paramref name="user"/> that is about to pull and may then wait. Register
    /// before the pull, so that a change committed between the pull and the wait is not missed.
    /// </summary>
    public WaitAdmission TryAdd(UserNo user, string protocol, out ChangeWaiter? waiter)
    {
        waiter = null;
        if (_stopping)
        {
            return WaitAdmission.Stopping;
        }

        if (Interlocked.Increment(ref _count) > _maxWaiters)
        {
            Interlocked.Decrement(ref _count);
            return WaitAdmission.InstanceFull;
        }

        while (true)
        {
            var group = _byUser.GetOrAdd(user.Value, static _ => new UserWaiters());
            lock (group)
            {
                if (group.Retired)
                {
                    continue; // emptied and removed under our feet: take the new group
                }

                if (group.Waiters.Count >= _maxPerUser)
                {
                    Interlocked.Decrement(ref _count);
                    return WaitAdmission.UserFull;
                }

                waiter = new ChangeWaiter(this, user.Value, group, protocol);
                group.Waiters.Add(waiter);
            }

            _metrics?.AddWaiter(protocol, 1);
            return WaitAdmission.Admitted;
        }
    }

    /// <summary>Changes of <paramref name="user"/> up to <paramref name="seq"/> committed: wakes the waiters behind it.</summary>
    public void Notify(long user, long seq, WakeSignal signal)
    {
        if (!_byUser.TryGetValue(user, out var group))
        {
            return;
        }

        lock (group)
        {
            foreach (var waiter in group.Waiters)
            {
                waiter.OnNotified(seq, signal);
            }
        }
    }

    /// <summary>
    /// A device of <paramref name="user"/> was revoked: its waiting devices wake without a change, to check
    /// that their tokens still hold (a revoked one ends its wait at once).
    /// </summary>
    public void Recheck(long user)
    {
        if (!_byUser.TryGetValue(user, out var group))
        {
            return;
        }

        lock (group)
        {
            foreach (var waiter in group.Waiters)
            {
                waiter.OnRecheck();
            }
        }
    }

    /// <summary>On shutdown: every wait ends now (its device is answered), and no new one starts.</summary>
    public void Stop()
    {
        _stopping = true;
        foreach (var group in _byUser.Values)
        {
            lock (group)
            {
                foreach (var waiter in group.Waiters)
                {
                    waiter.OnStopping();
                }
            }
        }
    }

    internal bool IsStopping => _stopping;

    internal void Remove(ChangeWaiter waiter, UserWaiters group)
    {
        lock (group)
        {
            if (!group.Waiters.Remove(waiter))
            {
                return;
            }

            if (group.Waiters.Count == 0)
            {
                group.Retired = true;
                _byUser.TryRemove(new KeyValuePair<long, UserWaiters>(waiter.User, group));
            }
        }

        Interlocked.Decrement(ref _count);
        _metrics?.AddWaiter(waiter.Protocol, -1);
    }

    internal sealed class UserWaiters
    {
        public List<ChangeWaiter> Waiters { get; } = new(1);

        public bool Retired { get; set; }
    }
}

/// <summary>Whether a device may wait; why not otherwise.</summary>
public enum WaitAdmission
{
    Admitted,

    /// <summary><c>Sync:MaxWaiters</c> devices already wait on this instance.</summary>
    InstanceFull,

    /// <summary><c>Sync:MaxWaitersPerUser</c> devices of this user already wait on this instance.</summary>
    UserFull,

    /// <summary>The service is shutting down.</summary>
    Stopping,
}

/// <summary>
/// Why a waiter woke: a notification received at <see cref="ReceivedAt"/> (a <see cref="Stopwatch"/>
/// timestamp) and stamped by the database at <see cref="StampedAt"/> (null when a re-check after a
/// listener reconnect woke it), the service stopping, or a device of the user revoked
/// (<see cref="Recheck"/>: no change, but the waiter should check that its token still holds).
/// </summary>
public readonly record struct WakeSignal(long ReceivedAt, DateTimeOffset? StampedAt, bool Stopping = false, bool Recheck = false)
{
    public static WakeSignal Now(DateTimeOffset? stampedAt = null) => new(Stopwatch.GetTimestamp(), stampedAt);
}

/// <summary>
/// One waiting device. The caller pulls, then <see cref="ArmAsync"/> with the number its pull caught up
/// through; the task completes when a change numbered higher is notified (at once if one already was
/// since the waiter was registered), or when the service stops. A notified number wakes it once: should
/// its pull not see that change (a notification can only come from a commit, but a failover to a
/// server without it is conceivable), it sleeps until a newer one rather than pull again and again.
/// Dispose to leave the registry.
/// </summary>
public sealed class ChangeWaiter : IDisposable
{
    private readonly ChangeWaiters _owner;
    private readonly ChangeWaiters.UserWaiters _group;
    private long _caughtUpThrough = long.MaxValue; // nothing wakes it before its first pull has answered
    private long _notified = long.MinValue;
    private long _woken = long.MinValue; // the highest number that already woke it: each wakes it once
    private WakeSignal _latest;
    private TaskCompletionSource<WakeSignal>? _wake;
    private bool _disposed;

    internal ChangeWaiter(ChangeWaiters owner, long user, ChangeWaiters.UserWaiters group, string protocol)
    {
        _owner = owner;
        _group = group;
        User = user;
        Protocol = protocol;
    }

    internal long User { get; }

    internal string Protocol { get; }

    /// <summary>Waits for a change numbered above <paramref name="caughtUpThrough"/>; does not time out by itself.</summary>
    public Task<WakeSignal> ArmAsync(long caughtUpThrough)
    {
        lock (_group)
        {
            _caughtUpThrough = caughtUpThrough;
            if (_owner.IsStopping)
            {
                return Task.FromResult(new WakeSignal(Stopwatch.GetTimestamp(), null, Stopping: true));
            }

            if (_notified > caughtUpThrough && _notified > _woken)
            {
                _woken = _notified;
                return Task.FromResult(_latest);
            }

            _wake = new TaskCompletionSource<WakeSignal>(TaskCreationOptions.RunContinuationsAsynchronously);
            return _wake.Task;
        }
    }

    /// <summary>Whether a change numbered above <paramref name="seq"/> was notified since the waiter registered.</summary>
    internal bool HeardAbove(long seq)
    {
        lock (_group)
        {
            return _notified > seq;
        }
    }

    /// <summary>Under the group's lock.</summary>
    internal void OnNotified(long seq, WakeSignal signal)
    {
        if (seq <= _notified)
        {
            return; // already known: a repeat or an older notification
        }

        _notified = seq;
        _latest = signal;
        if (seq > _caughtUpThrough && _wake is { } wake)
        {
            _wake = null;
            _woken = seq;
            wake.TrySetResult(signal);
        }
    }

    /// <summary>Under the group's lock.</summary>
    internal void OnRecheck()
    {
        if (_wake is { } wake)
        {
            _wake = null;
            wake.TrySetResult(new WakeSignal(Stopwatch.GetTimestamp(), null, Recheck: true));
        }
    }

    /// <summary>Under the group's lock.</summary>
    internal void OnStopping()
    {
        if (_wake is { } wake)
        {
            _wake = null;
            wake.TrySetResult(new WakeSignal(Stopwatch.GetTimestamp(), null, Stopping: true));
        }
    }

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _owner.Remove(this, _group);
    }
}
