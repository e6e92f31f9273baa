using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// A device's push of a batch, through its retries; a push the service answers with other ids than the batch's fails for good.
/// </summary>
internal static class SyncPush
{
    public static async ValueTask<SyncAttempt> BatchAsync(
        SessionSteps steps, ScenarioStats? stats, ISyncClient client, long userNo,
        IReadOnlyList<NewHighlight> batch, IReadOnlyList<string> expected,
        SimulatedDevice device, CancellationToken cancellationToken)
    {
        IReadOnlyList<string>? ids = null;
        var outcome = await steps.RunAsync(
            stats,
            async ct =>
            {
                var (attempt, stored) = await client.PushAsync(userNo, batch, device, ct);
                ids = stored;
                return attempt;
            },
            cancellationToken);
        return !outcome.Ok || (ids is not null && ids.SequenceEqual(expected)) ? outcome : SyncAttempt.Permanent("push ids");
    }
}
