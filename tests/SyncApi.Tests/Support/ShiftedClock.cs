namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The system clock moved forward on demand: registered as the service's <see cref="TimeProvider"/>, it
/// lets a test jump past a retention or a lifetime. Timers and delays still run in real time.
/// </summary>
public sealed class ShiftedClock : TimeProvider
{
    private long _offsetTicks;

    public void Advance(TimeSpan by) => Interlocked.Add(ref _offsetTicks, by.Ticks);

    public override DateTimeOffset GetUtcNow() => base.GetUtcNow() + TimeSpan.FromTicks(Interlocked.Read(ref _offsetTicks));
}
