namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// What the storage pipelines report: a retry, the circuit opening, half-opening and closing. The
/// default implementation logs; a metrics implementation can replace or wrap it.
/// </summary>
public interface IResilienceEvents
{
    void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure);

    void CircuitOpened(TimeSpan breakDuration, Exception? failure);

    void CircuitHalfOpened();

    void CircuitClosed();
}
