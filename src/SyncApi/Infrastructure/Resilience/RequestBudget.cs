namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// When the current request stops being worth answering: set once per request by
/// <see cref="RequestBudgetMiddleware"/>, read by the storage pipelines' timeout. Flows with the
/// request's async context, so the store needs no extra parameter.
/// </summary>
public static class RequestBudget
{
    private static readonly AsyncLocal<DateTimeOffset?> Deadline = new();

    /// <summary>The current request's deadline; null outside a request (start-up work, tests).</summary>
    public static DateTimeOffset? Current => Deadline.Value;

    /// <summary>Time left, or null outside a request.</summary>
    public static TimeSpan? Remaining(TimeProvider clock) =>
        Deadline.Value is { } due ? due - clock.GetUtcNow() : null;

    internal static void Set(DateTimeOffset? deadline) => Deadline.Value = deadline;
}
