namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>A device's patience, as a real e-reader's: a timeout per attempt, backoff with jitter, a bounded number of retries.</summary>
public sealed record DeviceBehaviour
{
    public int TimeoutMs { get; init; } = 5_000;

    public int MaxRetries { get; init; } = 3;

    public int BaseDelayMs { get; init; } = 500;

    public int MaxDelayMs { get; init; } = 30_000;

    /// <summary>Lifetime of the device tokens the simulator mints.</summary>
    public int TokenLifetimeMinutes { get; init; } = 60;

    /// <summary>
    /// A device's own pace within a sync session: at most <see cref="Burst"/> requests at once, then
    /// <see cref="RequestsPerSecond"/>. Below the service's per-device limit (20, then 10/s), so a
    /// long first sync is not refused with 429.
    /// </summary>
    public int RequestsPerSecond { get; init; } = 9;

    public int Burst { get; init; } = 18;

    internal IEnumerable<string> Validate()
    {
        if (TimeoutMs < 1 || MaxRetries < 0 || BaseDelayMs < 0 || MaxDelayMs < BaseDelayMs || TokenLifetimeMinutes < 1
            || RequestsPerSecond < 1 || Burst < 1)
        {
            yield return "device needs timeoutMs >= 1, maxRetries >= 0, 0 <= baseDelayMs <= maxDelayMs, tokenLifetimeMinutes >= 1, " +
                "requestsPerSecond >= 1, burst >= 1";
        }
    }
}
