using System.Collections.Concurrent;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// The devices waiting for changes on this instance, grouped by user, within three budgets:
/// <c>Sync:MaxWaiters</c> for the instance, <c>Sync:MaxWaitersPerUser</c> for one user and, within the
/// user's, <see cref="SyncOptions.WaitersPerDevice"/> for one device (its REST waits and gRPC watches
/// together), so one device cannot hold every place of its user. A waiter
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
    private readonly int _maxPerDevice;
    private readonly SyncMetrics? _metrics;
    private int _count;
    private volatile bool _stopping;

    /// <param name="revocations">When given, a revocation wakes the user's waiting devices to re-check (<see cref="Recheck"/>).</param>
    public ChangeWaiters(IOptions<SyncOptions> options, SyncMetrics? metrics = null, DeviceRevocationList? revocations = null)
    {
        _maxWaiters = options.Value.LivePull ? options.Value.MaxWaiters : 0;
        _maxPerUser = options.Value.MaxWaitersPerUser;
        _maxPerDevice = options.Value.WaitersPerDevice;
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
    /// Registers <paramref name="device"/> of <paramref name="user"/>, about to pull and then maybe wait.
    /// Register before the pull, so that a change committed between the pull and the wait is not missed.
    /// </summary>
    public WaitAdmission TryAdd(UserNo user, string device, string protocol, out ChangeWaiter? waiter)
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

                if (WaitsOf(group, device) >= _maxPerDevice)
                {
                    Interlocked.Decrement(ref _count);
                    return WaitAdmission.DeviceFull;
                }

                waiter = new ChangeWaiter(this, user.Value, device, group, protocol);
                group.Waiters.Add(waiter);
            }

            _metrics?.AddWaiter(protocol, 1);
            return WaitAdmission.Admitted;
        }
    }

    /// <summary>The waits <paramref name="device"/> holds among its user's (a short list: the user's budget bounds it).</summary>
    private static int WaitsOf(UserWaiters group, string device)
    {
        var waits = 0;
        foreach (var waiter in group.Waiters)
        {
            if (string.Equals(waiter.Device, device, StringComparison.Ordinal))
            {
                waits++;
            }
        }

        return waits;
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
