using System.Diagnostics;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>The engine's time: elapsed since the run started, and a wait until an instant of it. Tests drive a manual one.</summary>
public interface IRunClock
{
    TimeSpan Elapsed { get; }

    ValueTask WaitUntilAsync(TimeSpan at, CancellationToken cancellationToken);
}

/// <summary>Wall-clock time from a <see cref="Stopwatch"/>; waits sleep, so the generator burns no CPU between arrivals.</summary>
public sealed class SystemRunClock : IRunClock
{
    private readonly Stopwatch _stopwatch = Stopwatch.StartNew();

    public TimeSpan Elapsed => _stopwatch.Elapsed;

    public async ValueTask WaitUntilAsync(TimeSpan at, CancellationToken cancellationToken)
    {
        var remaining = at - _stopwatch.Elapsed;
        if (remaining > TimeSpan.FromMilliseconds(1))
        {
            await Task.Delay(remaining, cancellationToken);
        }
    }
}
