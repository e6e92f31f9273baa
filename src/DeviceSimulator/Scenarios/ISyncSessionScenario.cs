using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// A scenario whose sync is a session of several requests (device sync): each request is retried on
/// its own by the device's retry pipeline, so a session that meets a 429 on its third page resumes
/// at that page rather than starting again. Each step also has its own latency statistics.
/// </summary>
public interface ISyncSessionScenario : IReadScenario
{
    /// <summary>One statistics per step of the session (its latency includes the step's retries).</summary>
    IReadOnlyList<ScenarioStats> StepStats { get; }

    /// <summary>The <paramref name="sequence"/>-th session, meant to start in <paramref name="second"/> of the run.</summary>
    ValueTask<(SyncAttempt Outcome, int Attempts)> SessionAsync(
        SimulatedDevice device, long sequence, int second, DeviceRetryPipeline steps, CancellationToken cancellationToken);
}
