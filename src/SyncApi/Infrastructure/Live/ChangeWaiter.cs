using System.Diagnostics;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

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

    internal ChangeWaiter(ChangeWaiters owner, long user, string device, ChangeWaiters.UserWaiters group, string protocol)
    {
        _owner = owner;
        _group = group;
        User = user;
        Device = device;
        Protocol = protocol;
    }

    internal long User { get; }

    /// <summary>The device of <see cref="User"/> that waits (its token's device id).</summary>
    internal string Device { get; }

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
