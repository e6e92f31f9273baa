namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>
/// The SLA of a run: every service scenario's p99 under <see cref="P99Ms"/>, failed syncs under
/// <see cref="FailedSyncPercent"/>, over the whole run, each step and each window of a long step;
/// live pull's wake latency p99 at most <see cref="WakeP99Ms"/>.
/// </summary>
public sealed record Thresholds
{
    public double P99Ms { get; init; } = 200;

    public double FailedSyncPercent { get; init; } = 0.1;

    /// <summary>Live pull: p99 of the time from a push's acknowledgement to a waiting device of its user holding the change.</summary>
    public double WakeP99Ms { get; init; } = 100;

    /// <summary>
    /// Length of the windows a long step is judged by, in seconds; null for the gate's
    /// <see cref="Gate.SlaGate.DefaultWindowSeconds"/> (10 minutes).
    /// </summary>
    public int? WindowSeconds { get; init; }

    /// <summary>
    /// Device sync: the p99 limit of a whole session (several requests: a first sync's pages, a push and
    /// two pulls), when it differs from the requests'; null judges sessions by <see cref="P99Ms"/>. Each
    /// request of a session (its steps, reported beside it) is judged by <see cref="P99Ms"/> either way.
    /// </summary>
    public double? SessionP99Ms { get; init; }

    internal IEnumerable<string> Validate()
    {
        if (!(P99Ms > 0) || FailedSyncPercent < 0 || !(WakeP99Ms > 0))
        {
            yield return "thresholds need p99Ms > 0, failedSyncPercent >= 0 and wakeP99Ms > 0";
        }

        if (SessionP99Ms is { } session && !(session > 0))
        {
            yield return "thresholds.sessionP99Ms must be above 0 (or left out to judge sessions by p99Ms)";
        }

        if (WindowSeconds is < 1)
        {
            yield return "thresholds.windowSeconds must be at least 1 (or left out for 600)";
        }
    }
}
