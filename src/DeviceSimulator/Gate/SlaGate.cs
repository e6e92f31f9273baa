using System.Globalization;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Gate;

/// <summary>
/// The release gate: every scenario served by the service (REST, gRPC) keeps its p99 under the
/// profile's limit, and every scenario keeps its failed syncs (after the devices' retries) under the
/// limit. A scenario with no completed sync fails: a gate that measured nothing proves nothing.
/// A service scenario is judged over the whole run, and also step by step (when it has more than one)
/// and window by window in a step longer than the window (<see cref="StepWindows"/>), so a last step
/// past the capacity, or a step that degrades after half an hour, cannot hide behind the average of
/// the run. Live pull's wake statistics are gated on their own, over the whole run: at least one
/// delivery, the wake p99 at most <see cref="Thresholds.WakeP99Ms"/>, no delivery missed and none
/// to another user's device.
/// </summary>
public static class SlaGate
{
    /// <summary>Exit code of a run whose thresholds failed.</summary>
    public const int FailedExitCode = 1;

    /// <summary>Exit code of a run that met every threshold while its generator (a shard's) was saturated: it proves nothing.</summary>
    public const int NotProvenExitCode = 4;

    /// <summary>Length of the windows of a long step, unless the profile's <see cref="Thresholds.WindowSeconds"/> says otherwise.</summary>
    public const int DefaultWindowSeconds = 600;

    public static int WindowSeconds(Thresholds thresholds) => thresholds.WindowSeconds ?? DefaultWindowSeconds;

    /// <summary>The exit code of <c>run</c> and <c>merge</c>: 0 pass, 1 a threshold failed, 4 not proven.</summary>
    public static int ExitCode(RunResult result) => result.Outcome switch
    {
        RunOutcome.Pass => 0,
        RunOutcome.NotProven => NotProvenExitCode,
        _ => FailedExitCode,
    };

    public static IReadOnlyList<ThresholdCheck> Check(Thresholds thresholds, IReadOnlyList<ScenarioResult> scenarios)
    {
        var checks = new List<ThresholdCheck>();
        foreach (var s in scenarios)
        {
            if (s.Measure == Measure.Wake)
            {
                var live = s.Live ?? new LiveCounts();
                checks.Add(new ThresholdCheck(s.Name, "deliveries", 1, s.Syncs, s.Syncs >= 1));
                checks.Add(
                    new ThresholdCheck(s.Name, "wake p99 ms", thresholds.WakeP99Ms, s.Latency.P99, s.Latency.P99 <= thresholds.WakeP99Ms));
                checks.Add(new ThresholdCheck(s.Name, "missed deliveries", 0, live.Missed, live.Missed == 0));
                checks.Add(new ThresholdCheck(s.Name, "deliveries to another user", 0, live.Misdelivered, live.Misdelivered == 0));
                continue;
            }

            checks.Add(new ThresholdCheck(s.Name, "syncs", 1, s.Syncs, s.Syncs >= 1));
            if (s.Transport != Transport.Postgres)
            {
                var limit = P99Limit(thresholds, s);
                checks.Add(new ThresholdCheck(s.Name, "p99 ms", limit, s.Latency.P99, s.Latency.P99 < limit));
            }

            checks.Add(
                new ThresholdCheck(
                    s.Name, "failed syncs %", thresholds.FailedSyncPercent,
                    s.FailedPercent, s.FailedPercent <= thresholds.FailedSyncPercent));
            if (s.Transport != Transport.Postgres)
            {
                checks.AddRange(StepChecks(thresholds, s));
            }
        }

        return checks;
    }

    /// <summary>
    /// Each step's (of a scenario with several) and each window's p99 and failed syncs. A step or
    /// window in which no sync was meant to start (a pause at rate 0) has nothing to judge.
    /// </summary>
    private static IEnumerable<ThresholdCheck> StepChecks(Thresholds thresholds, ScenarioResult s)
    {
        var limit = P99Limit(thresholds, s);
        foreach (var step in s.Steps)
        {
            if (s.Steps.Count > 1 && step.Syncs > 0)
            {
                var part = $"step {step.Step + 1} ({Rate(step)})";
                yield return new ThresholdCheck(s.Name, "p99 ms", limit, step.P99, step.P99 < limit, part);
                yield return new ThresholdCheck(
                    s.Name, "failed syncs %", thresholds.FailedSyncPercent, step.FailedPercent,
                    step.FailedPercent <= thresholds.FailedSyncPercent, part);
            }

            foreach (var window in step.Windows.Where(w => w.Syncs > 0))
            {
                var part = $"step {step.Step + 1} window {window.Window + 1} " +
                    $"({Span(window.FromSecond - step.FromSecond, window.ToSecond - step.FromSecond)})";
                yield return new ThresholdCheck(s.Name, "p99 ms", limit, window.P99, window.P99 < limit, part);
                yield return new ThresholdCheck(
                    s.Name, "failed syncs %", thresholds.FailedSyncPercent, window.FailedPercent,
                    window.FailedPercent <= thresholds.FailedSyncPercent, part);
            }
        }
    }

    /// <summary>
    /// A whole device-sync session (not one of its steps, named "session/step") is judged by the session limit when the profile sets one.
    /// </summary>
    private static double P99Limit(Thresholds thresholds, ScenarioResult s) =>
        thresholds.SessionP99Ms is { } session && !s.Name.Contains('/', StringComparison.Ordinal)
            && s.Read is ReadKind.SyncSession or ReadKind.FirstSyncStorm or ReadKind.Day
            ? session
            : thresholds.P99Ms;

    private static string Rate(StepResult step) => step.RampTo is { } to
        ? string.Create(CultureInfo.InvariantCulture, $"{step.Rate:0.#}-{to:0.#}/s")
        : string.Create(CultureInfo.InvariantCulture, $"{step.Rate:0.#}/s");

    /// <summary>A window's place in its step: in minutes when it falls on whole minutes, else in seconds.</summary>
    private static string Span(double from, double to) => from % 60 == 0 && to % 60 == 0
        ? string.Create(CultureInfo.InvariantCulture, $"{from / 60:0.#}-{to / 60:0.#} min")
        : string.Create(CultureInfo.InvariantCulture, $"{from:0.#}-{to:0.#} s");
}
