namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>A monotonic clock that moves only when the test says (microsecond ticks), for code that measures time with timestamps.</summary>
public sealed class ManualClock : TimeProvider
{
    private long _ticks = 1_000_000;

    public override long TimestampFrequency => 1_000_000;

    public override long GetTimestamp() => _ticks;

    public void Advance(double seconds) => _ticks += (long)Math.Round(seconds * TimestampFrequency);
}
