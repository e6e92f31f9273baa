using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>
/// The waiting devices' requests, counted only inside the window (from the first push to the end of
/// the drain), so that catching up before the pushes does not inflate the requests per device-hour.
/// </summary>
public sealed class WaiterCounters
{
    private long _requests;
    private long _answers;
    private long _heartbeats;
    private long _refused;
    private long _errors;
    private long _windowStarted;
    private volatile bool _open;

    public void Open()
    {
        _windowStarted = System.Diagnostics.Stopwatch.GetTimestamp();
        _open = true;
    }

    public void Request() => Add(ref _requests);

    public void AnswerWithChanges() => Add(ref _answers);

    public void Heartbeat() => Add(ref _heartbeats);

    public void Refused() => Add(ref _refused);

    public void Error() => Add(ref _errors);

    /// <summary>The counts so far added to the ledger's; the window ends now.</summary>
    public LiveCounts Close(LiveCounts deliveries)
    {
        var window = _open ? System.Diagnostics.Stopwatch.GetElapsedTime(_windowStarted).TotalSeconds : 0;
        _open = false;
        return deliveries with
        {
            Requests = Interlocked.Read(ref _requests),
            AnswersWithChanges = Interlocked.Read(ref _answers),
            Heartbeats = Interlocked.Read(ref _heartbeats),
            Refused = Interlocked.Read(ref _refused),
            Errors = Interlocked.Read(ref _errors),
            WindowSeconds = window,
        };
    }

    private void Add(ref long counter)
    {
        if (_open)
        {
            Interlocked.Increment(ref counter);
        }
    }
}
