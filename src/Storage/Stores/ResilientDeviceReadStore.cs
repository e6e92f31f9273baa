using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs the device reads in their storage pipelines: bounded by the request's budget, retried once or
/// twice on a transient failure, cut off by the lag-tolerant reads' circuit. They go through the read
/// coalescer, which is handed the pipeline's token as it is
/// (<see cref="StoragePipelines.RunCoalescedAsync{TResult, TState}(string, TState, Func{TState, CancellationToken, Task{TResult}}, CancellationToken)"/>).
/// A page of more rows than a default page is sized by the device (<see cref="CallCosts"/>).
/// </summary>
public sealed class ResilientDeviceReadStore(PostgresDeviceReadStore store, StoragePipelines pipelines) : IDeviceReadStore
{
    public Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunCoalescedAsync(
            StoragePipelines.PointRead, (store, user),
            static (s, ct) => s.store.FindUserAsync(s.user, ct),
            cancellationToken);

    public Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
        UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        return pipelines.RunCoalescedAsync(
            StoragePipelines.RangeRead, CallCosts.OfRows(limit), (store, user, range, limit),
            static (s, ct) => s.store.ListHighlightsAsync(s.user, s.range, s.limit, ct),
            cancellationToken);
    }
}
