using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;

namespace Kobo.Sync.DeviceSimulator.Gate;

/// <summary>
/// The release gate: every scenario served by the service (REST, gRPC) keeps its p99 under the
/// profile's limit, and every scenario keeps its failed syncs (after the devices' retries) under the
/// limit. A scenario with no completed sync fails: a gate that measured nothing proves nothing.
/// Live pull's wake statistics are gated on their own: at least one delivery, the wake p99 at most
/// <see cref="Thresholds.WakeP99Ms"/>, no delivery missed and none to another user's device.
/// </summary>
public static class SlaGate
{
    /// <summary>Exit code of a run whose thresholds failed.</summary>
    public const int FailedExitCode = 1;

    public static IReadOnlyList<ThresholdCheck> Check(Thresholds thresholds, IReadOnlyList<ScenarioResult> scenarios)
    {
        var checks = new List<ThresholdCheck>();
        foreach (var s in scenarios)
        {
            if (s.Measure == Measure.Wake)
            {
                var live = s.Live ?? new LiveCounts();
                checks.Add(new ThresholdCheck(s.Name, "deliveries", 1, s.Syncs, s.Syncs >= 1));
                checks.Add(new ThresholdCheck(s.Name, "wake p99 ms", thresholds.WakeP99Ms, s.Latency.P99, s.Latency.P99 <= thresholds.WakeP99Ms));
                checks.Add(new ThresholdCheck(s.Name, "missed deliveries", 0, live.Missed, live.Missed == 0));
                checks.Add(new ThresholdCheck(s.Name, "deliveries to another user", 0, live.Misdelivered, live.Misdelivered == 0));
                continue;
            }

            checks.Add(new ThresholdCheck(s.Name, "syncs", 1, s.Syncs, s.Syncs >= 1));
            if (s.Transport != Transport.Postgres)
            {
                checks.Add(new ThresholdCheck(s.Name, "p99 ms", thresholds.P99Ms, s.Latency.P99, s.Latency.P99 < thresholds.P99Ms));
            }

            checks.Add(new ThresholdCheck(s.Name, "failed syncs %", thresholds.FailedSyncPercent, s.FailedPercent, s.FailedPercent <= thresholds.FailedSyncPercent));
        }

        return checks;
    }
}
