using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>Counts a push's results by status in <c>kobo.sync.push.changes</c>, the same way for REST and gRPC.</summary>
internal static class PushMetrics
{
    public static void RecordPushResults(this SyncMetrics metrics, IReadOnlyList<ChangeResult> results) =>
        metrics.RecordPushResults(results, static r => r.Status);

    /// <summary>The results as the protocol answers them (REST's, gRPC's messages), each with its status.</summary>
    public static void RecordPushResults<TResult>(this SyncMetrics metrics, IReadOnlyList<TResult> results, Func<TResult, string> status)
    {
        // The four statuses counted in one pass, without grouping; each status a push has is recorded once (any other as it comes).
        int applied = 0, unchanged = 0, conflict = 0, rejected = 0;
        for (var i = 0; i < results.Count; i++)
        {
            switch (status(results[i]))
            {
                case ChangeStatus.Applied: applied++; break;
                case ChangeStatus.Unchanged: unchanged++; break;
                case ChangeStatus.Conflict: conflict++; break;
                case ChangeStatus.Rejected: rejected++; break;
                case var other: metrics.RecordPushChanges(other, 1); break;
            }
        }

        Record(metrics, ChangeStatus.Applied, applied);
        Record(metrics, ChangeStatus.Unchanged, unchanged);
        Record(metrics, ChangeStatus.Conflict, conflict);
        Record(metrics, ChangeStatus.Rejected, rejected);
    }

    private static void Record(SyncMetrics metrics, string status, int count)
    {
        if (count > 0)
        {
            metrics.RecordPushChanges(status, count);
        }
    }
}
