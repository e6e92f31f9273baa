using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;

namespace Kobo.Sync.DeviceSimulator.Gate;

/// <summary>
/// The release gate: every scenario served by the service (REST, gRPC) keeps its p99 under the
/// profile's limit, and every scenario keeps its failed syncs (after the devices' retries) under the
/// limit. A scenario with no completed sync fails: a gate that measured nothing proves nothing.
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
