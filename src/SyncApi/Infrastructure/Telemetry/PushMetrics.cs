using Kobo.Sync.Domain.ChangeFeed;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>Counts a push's results by status in <c>kobo.sync.push.changes</c>, the same way for REST and gRPC.</summary>
internal static class PushMetrics
{
    public static void RecordPushResults(this SyncMetrics metrics, IReadOnlyList<ChangeResult> results)
    {
        foreach (var status in results.GroupBy(r => r.Status, StringComparer.Ordinal))
        {
            metrics.RecordPushChanges(status.Key, status.Count());
        }
    }
}
