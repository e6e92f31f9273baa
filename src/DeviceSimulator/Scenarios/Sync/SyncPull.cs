using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// A device's pull: page after page from its token while <c>hasMore</c> is true, keeping the last
/// page's token and counting the highlight changes the pages brought.
/// </summary>
internal static class SyncPull
{
    public static async ValueTask<(SyncAttempt Outcome, string? Token, long Highlights)> AllPagesAsync(
        SessionSteps steps, ScenarioStats? stats, ISyncClient client, long userNo, string? since, int pageSize,
        SimulatedDevice device, CancellationToken cancellationToken)
    {
        var token = since;
        long highlights = 0;
        while (true)
        {
            PulledPage? page = null;
            var outcome = await steps.RunAsync(
                stats,
                async ct =>
                {
                    var (attempt, pulled) = await client.PullAsync(userNo, token, pageSize, device, ct);
                    page = pulled;
                    return attempt;
                },
                cancellationToken);
            if (!outcome.Ok || page is null)
            {
                return (outcome.Ok ? SyncAttempt.Permanent("bad pull page") : outcome, token, highlights);
            }

            stats?.RecordChanges(page.Changes);
            highlights += page.Highlights;
            token = page.SyncToken;
            if (!page.HasMore)
            {
                return (outcome, token, highlights);
            }
        }
    }
}
