using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>Waiting device <paramref name="Index"/> of the user of <paramref name="Group"/>.</summary>
public sealed record WaitingDevice(int Group, int Index, long UserNo, SimulatedDevice Device);

/// <summary>What every waiting device of a scenario shares: where it reports, how it catches up and backs off.</summary>
public sealed class WaiterContext(
    DeliveryLedger ledger, WaiterCounters counters, SemaphoreSlim catchingUp, DeviceBehaviour behaviour, int pageSize, int waitSeconds)
{
    private int _ready;

    public DeliveryLedger Ledger => ledger;

    public WaiterCounters Counters => counters;

    /// <summary>
    /// Bounds the devices catching up at once (their backlog pulls), over all the run's live scenarios, as the engine bounds syncs in
    /// flight.
    /// </summary>
    public SemaphoreSlim CatchingUp => catchingUp;

    public DeviceBehaviour Behaviour => behaviour;

    public int PageSize => pageSize;

    public int WaitSeconds => waitSeconds;

    /// <summary>Devices that have caught up once and now wait.</summary>
    public int Ready => Volatile.Read(ref _ready);

    public void CaughtUp() => Interlocked.Increment(ref _ready);

    /// <summary>
    /// The wait before trying again after a failure: the server's own when it gave one, plus up to as much
    /// again at random (thousands of waiting devices told the same time must not all come back at the
    /// same instant); else exponential backoff with full jitter from the device's <c>baseDelayMs</c> up
    /// to its <c>maxDelayMs</c>.
    /// </summary>
    public TimeSpan Backoff(int failures, TimeSpan? retryAfter)
    {
        if (retryAfter is { } told)
        {
            return told * (1 + Random.Shared.NextDouble());
        }

        var cap = Math.Min(behaviour.MaxDelayMs, behaviour.BaseDelayMs * Math.Pow(2, Math.Min(failures, 20)));
        return TimeSpan.FromMilliseconds(Math.Max(1, Random.Shared.NextDouble() * cap));
    }
}

/// <summary>How a waiting device waits for changes over one transport, until <c>stop</c> is cancelled.</summary>
public interface IWaiterTransport
{
    Task RunAsync(WaitingDevice device, WaiterContext context, CancellationToken stop);
}
