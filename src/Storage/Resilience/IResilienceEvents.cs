namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// What the storage pipelines report: a retry, a call out of budget, the circuit opening,
/// half-opening and closing. The web host's implementation logs them and counts them in
/// <c>kobo_sync_resilience_events_total</c>; <see cref="Unreported"/> drops them (the simulator's baseline).
/// </summary>
public interface IResilienceEvents
{
    void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure);

    void TimedOut(string pipeline);

    void CircuitOpened(TimeSpan breakDuration, Exception? failure);

    void CircuitHalfOpened();

    void CircuitClosed();

    /// <summary>Events no one reads.</summary>
    public static IResilienceEvents Unreported { get; } = new UnreportedEvents();

    private sealed class UnreportedEvents : IResilienceEvents
    {
        public void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure)
        {
        }

        public void TimedOut(string pipeline)
        {
        }

        public void CircuitOpened(TimeSpan breakDuration, Exception? failure)
        {
        }

        public void CircuitHalfOpened()
        {
        }

        public void CircuitClosed()
        {
        }
    }
}
