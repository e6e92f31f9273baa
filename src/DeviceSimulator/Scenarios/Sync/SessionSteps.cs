using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// The requests of one device's sync session: each step runs through the device's retry pipeline
/// (none during warm-up), is paced to the device's own request rate (a burst, then a steady rate,
/// below the service's per-device limit), and is recorded in its step's statistics.
/// </summary>
internal sealed class SessionSteps(DeviceRetryPipeline? pipeline, DeviceBehaviour device, int second)
{
    private readonly long _started = Stopwatch.GetTimestamp();
    private int _requests;

    /// <summary>
    /// Every attempt of each of the session's requests: a session of ten pages with no retry made ten (its retries are in its steps'
    /// statistics).
    /// </summary>
    public int Attempts { get; private set; }

    public async ValueTask<SyncAttempt> RunAsync(
        ScenarioStats? stats, Func<CancellationToken, ValueTask<SyncAttempt>> attempt, CancellationToken cancellationToken)
    {
        var began = Stopwatch.GetTimestamp();
        SyncAttempt outcome;
        int attempts;
        if (pipeline is null)
        {
            await PaceAsync(cancellationToken);
            (outcome, attempts) = (await attempt(cancellationToken), 1);
        }
        else
        {
            (outcome, attempts) = await pipeline.SyncAsync(
                static async (state, ct) =>
                {
                    await state.Steps.PaceAsync(ct);
                    return await state.Attempt(ct);
                },
                (Steps: this, Attempt: attempt),
                cancellationToken);
        }

        Attempts += attempts;
        stats?.Record(second, Stopwatch.GetElapsedTime(began), outcome.Ok ? SyncOutcome.Ok : SyncOutcome.Failed, attempts);
        return outcome;
    }

    /// <summary>Request n (from 0) of the session starts no earlier than (n + 1 - burst) / rate seconds after its start.</summary>
    private async ValueTask PaceAsync(CancellationToken cancellationToken)
    {
        var n = _requests++;
        if (n < device.Burst)
        {
            return;
        }

        var due = TimeSpan.FromSeconds((n + 1 - device.Burst) / (double)device.RequestsPerSecond);
        var wait = due - Stopwatch.GetElapsedTime(_started);
        if (wait > TimeSpan.Zero)
        {
            await Task.Delay(wait, cancellationToken);
        }
    }
}
