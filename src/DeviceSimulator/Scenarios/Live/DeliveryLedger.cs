using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>
/// Which waiting device is owed which pushed change, and when each got it. A push registers its
/// changes' ids before it is sent (<see cref="Expect"/>), so that a delivery that beats the push's own
/// answer is not lost; the answer marks them acknowledged (<see cref="Acknowledge"/>), and from then on
/// every waiting device of the user owes the change. Each first delivery of an acknowledged change
/// records its wake latency: from the acknowledgement to the device holding the change, 0 when the
/// device held it first. Changes this ledger never registered (warm-up, earlier runs) are ignored.
/// Times are <see cref="Stopwatch"/> timestamps of this process, so pushes and waiters share a clock.
/// </summary>
public sealed class DeliveryLedger(int waitersPerUser, ScenarioStats wake)
{
    private readonly ConcurrentDictionary<string, Pushed> _changes = new(StringComparer.Ordinal);
    private long _owed;
    private long _beforeAck;
    private long _repeated;
    private long _misdelivered;
    private long _unacknowledged;

    public ScenarioStats Wake => wake;

    /// <summary>Deliveries owed by acknowledged pushes and not yet made.</summary>
    public long Owed => Interlocked.Read(ref _owed);

    /// <summary>
    /// A push of <paramref name="group"/>'s user, meant to start in <paramref name="second"/> of the run, is about to send these changes.
    /// </summary>
    public void Expect(IReadOnlyList<string> ids, int group, int second)
    {
        foreach (var id in ids)
        {
            _changes[id] = new Pushed(group, second, waitersPerUser);
        }
    }

    /// <summary>The push's answer said these changes are stored; <paramref name="at"/> is when the pushing device had it.</summary>
    public void Acknowledge(IReadOnlyList<string> ids, long at)
    {
        foreach (var id in ids)
        {
            if (!_changes.TryGetValue(id, out var pushed))
            {
                continue;
            }

            lock (pushed)
            {
                pushed.AckedAt = at;
                var owed = 0;
                foreach (var received in pushed.ReceivedAt)
                {
                    if (received == 0)
                    {
                        owed++;
                    }
                    else
                    {
                        Interlocked.Increment(ref _beforeAck);
                        wake.Record(pushed.Second, TimeSpan.Zero, SyncOutcome.Ok, 1);
                    }
                }

                Interlocked.Add(ref _owed, owed);
            }
        }
    }

    /// <summary>The push failed after the device's retries: whether it was stored is unknown, so nobody is owed its changes.</summary>
    public void Fail(IReadOnlyList<string> ids)
    {
        Interlocked.Increment(ref _unacknowledged);
        foreach (var id in ids)
        {
            _changes.TryRemove(id, out _);
        }
    }

    /// <summary>
    /// Waiting device <paramref name="waiter"/> of <paramref name="group"/>'s user holds change <paramref name="id"/> since
    /// <paramref name="at"/>.
    /// </summary>
    public void Receive(int group, int waiter, string id, long at)
    {
        if (!_changes.TryGetValue(id, out var pushed))
        {
            return;
        }

        if (pushed.Group != group)
        {
            Interlocked.Increment(ref _misdelivered);
            return;
        }

        lock (pushed)
        {
            if (pushed.ReceivedAt[waiter] != 0)
            {
                Interlocked.Increment(ref _repeated);
                return;
            }

            pushed.ReceivedAt[waiter] = at;
            if (pushed.AckedAt != 0)
            {
                Interlocked.Decrement(ref _owed);
                var latency = Stopwatch.GetElapsedTime(pushed.AckedAt, at);
                wake.Record(pushed.Second, latency > TimeSpan.Zero ? latency : TimeSpan.Zero, SyncOutcome.Ok, 1);
            }
        }
    }

    /// <summary>What was owed and what arrived, with the run's other delivery counts (the requests are the waiters').</summary>
    public LiveCounts Count(long waiters)
    {
        long expected = 0, delivered = 0;
        foreach (var pushed in _changes.Values)
        {
            lock (pushed)
            {
                if (pushed.AckedAt == 0)
                {
                    continue;
                }

                expected += pushed.ReceivedAt.Length;
                delivered += pushed.ReceivedAt.Count(r => r != 0);
            }
        }

        return new LiveCounts
        {
            Waiters = waiters,
            Expected = expected,
            Delivered = delivered,
            BeforeAck = Interlocked.Read(ref _beforeAck),
            Repeated = Interlocked.Read(ref _repeated),
            Misdelivered = Interlocked.Read(ref _misdelivered),
            UnacknowledgedPushes = Interlocked.Read(ref _unacknowledged),
        };
    }

    private sealed class Pushed(int group, int second, int waiters)
    {
        public int Group { get; } = group;

        public int Second { get; } = second;

        /// <summary>When the pushing device had the answer; 0 until then.</summary>
        public long AckedAt { get; set; }

        /// <summary>When each waiting device of the user first held the change; 0 until then.</summary>
        public long[] ReceivedAt { get; } = new long[waiters];
    }
}
