namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// What the storage pipelines report: a retry, a call out of budget, the circuit opening,
/// half-opening and closing. The default implementation logs them and counts them in
/// <c>kobo_sync_resilience_events_total</c>.
/// </summary>
public interface IResilienceEvents
{
    void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure);

    void TimedOut(string pipeline);

    void CircuitOpened(TimeSpan breakDuration, Exception? failure);

    void CircuitHalfOpened();

    void CircuitClosed();
}
