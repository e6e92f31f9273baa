namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// When the current request stops being worth answering: set once per request by
/// the web host's <c>RequestBudgetMiddleware</c>, read by the storage pipelines' timeout. Flows with the
/// request's async context, so the store needs no extra parameter. It also carries back to the
/// middleware whether the circuit refused one of the request's database calls (counted as shed).
/// </summary>
public static class RequestBudget
{
    private static readonly AsyncLocal<State?> Active = new();

    /// <summary>The current request's deadline; null outside a request (start-up work, tests).</summary>
    public static DateTimeOffset? Current => Active.Value?.Deadline;

    /// <summary>Time left, or null outside a request.</summary>
    public static TimeSpan? Remaining(TimeProvider clock) =>
        Active.Value is { } state ? state.Deadline - clock.GetUtcNow() : null;

    public static State Begin(DateTimeOffset deadline)
    {
        var state = new State(deadline);
        Active.Value = state;
        return state;
    }

    /// <summary>Brings the current request's deadline forward (a gRPC call's own deadline); never pushes it back.</summary>
    public static void NarrowTo(DateTimeOffset deadline)
    {
        if (Active.Value is { } state && deadline < state.Deadline)
        {
            state.Deadline = deadline;
        }
    }

    public static void MarkCircuitRejected()
    {
        if (Active.Value is { } state)
        {
            state.CircuitRejected = true;
        }
    }

    public sealed class State(DateTimeOffset deadline)
    {
        public DateTimeOffset Deadline { get; set; } = deadline;

        public bool CircuitRejected { get; set; }
    }
}
