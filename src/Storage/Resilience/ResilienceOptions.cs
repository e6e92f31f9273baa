using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.Storage.Resilience;

/// <summary>How database calls are bounded, retried and cut off (section <c>Resilience</c>).</summary>
public sealed class ResilienceOptions
{
    public const string SectionName = "Resilience";

    /// <summary>
    /// The time a request may spend on the database, counted from the arrival of its body (a slow
    /// upload is not the database's fault). A gRPC call with a shorter deadline gets that instead.
    /// The default leaves room for the largest push (500 changes in one transaction), which a budget
    /// equal to the device SLA (200 ms) would refuse on every retry; docs/operations.md has the figures.
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Resilience:RequestBudgetMs must be at least {1}.")]
    public int RequestBudgetMs { get; set; } = 1000;

    /// <summary>Retries of a read (and of a replay-safe write) after a transient failure; 0 turns retries off.</summary>
    [Range(0, 5, ErrorMessage = "Resilience:RetryAttempts must be from {1} to {2}.")]
    public int RetryAttempts { get; set; } = 2;

    /// <summary>Base delay of the first retry; later ones double, all with jitter.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Resilience:RetryBaseDelayMs must be at least {1}.")]
    public int RetryBaseDelayMs { get; set; } = 25;

    /// <summary>The circuit opens when this share of the calls sampled failed on the database...</summary>
    public double BreakerFailureRatio { get; set; } = 0.5;

    /// <summary>...over this window...</summary>
    [Range(500, int.MaxValue, ErrorMessage = "Resilience:BreakerSamplingMs must be at least {1}.")]
    public int BreakerSamplingMs { get; set; } = 2000;

    /// <summary>...with at least this many calls in it.</summary>
    [Range(2, int.MaxValue, ErrorMessage = "Resilience:BreakerMinimumThroughput must be at least {1}.")]
    public int BreakerMinimumThroughput { get; set; } = 4;

    /// <summary>How long an open circuit fails calls at once before letting one probe through.</summary>
    [Range(500, int.MaxValue, ErrorMessage = "Resilience:BreakerBreakMs must be at least {1}.")]
    public int BreakerBreakMs { get; set; } = 1000;

    /// <summary>How long the readiness probe waits for <c>SELECT 1</c>.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Resilience:ReadinessProbeTimeoutMs must be at least {1}.")]
    public int ReadinessProbeTimeoutMs { get; set; } = 1000;

    /// <summary>
    /// On SIGTERM the service turns unready, stops accepting connections and lets the requests in
    /// flight finish for at most this long before it exits (keep it under the orchestrator's grace period).
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Resilience:ShutdownDrainMs must be at least {1}.")]
    public int ShutdownDrainMs { get; set; } = 25000;

    /// <summary>Delay between attempts to reach the database at start while it is down.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Resilience:StartRetryDelayMs must be at least {1}.")]
    public int StartRetryDelayMs { get; set; } = 1000;
}
