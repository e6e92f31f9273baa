using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs every device-sync call in its storage pipeline, as the reads run: bounded by the request's
/// budget and cut off by the circuit, so a database outage answers 503 with <c>Retry-After</c>
/// (gRPC <c>UNAVAILABLE</c>) instead of an error or a hang. Retries only where a replay is provably
/// harmless: reads, the device's position (an upsert of the same row) and a revocation (a replay
/// at most moves the revocation a moment later, refusing the same tokens). A push is not retried here: its decision runs inside the store's
/// transaction, and the device's own retry of the batch is the replay that is safe (idempotent by
/// highlight id). Granting a book is a plain write. The reads here run on the primary (a pull
/// reads after the device's own pushes), so they sit behind the primary's circuit, not the standbys'.
/// A pull or device list of more rows than a default page, and a push of more changes, are sized by
/// the device (<see cref="CallCosts"/>): they obey the circuit but are not counted by it.
/// </summary>
public sealed class ResilientSyncStore(PostgresSyncStore store, StoragePipelines pipelines) : ISyncStore, IDeviceStore
{
    public Task<long?> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<HighlightId> ids,
        Func<IReadOnlyDictionary<HighlightId, HighlightState>, HighlightHoldings, IReadOnlyList<HighlightState>> decide,
        CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, CallCosts.OfRows(ids.Count), (store, user, ids, decide),
            static (s, ct) => s.store.ApplyAsync(s.user, s.ids, s.decide, ct),
            cancellationToken);

    public Task<StoredChanges?> ReadChangesAsync(
        UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, CallCosts.OfRows(limit), (store, user, after, limit, maxBytes),
            static (s, ct) => s.store.ReadChangesAsync(s.user, s.after, s.limit, s.maxBytes, ct),
            cancellationToken);

    public Task<bool> SetOwnershipAsync(UserNo user, BookNo book, bool owned, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (store, user, book, owned),
            static (s, ct) => s.store.SetOwnershipAsync(s.user, s.book, s.owned, ct),
            cancellationToken);

    public Task<long?> ReadCommittedSeqAsync(UserNo user, long written, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, written),
            static (s, ct) => s.store.ReadCommittedSeqAsync(s.user, s.written, ct),
            cancellationToken);

    public Task RecordPullsAsync(IReadOnlyList<DevicePull> pulls, DeviceBounds bounds, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, pulls, bounds),
            static (s, ct) => s.store.RecordPullsAsync(s.pulls, s.bounds, ct),
            cancellationToken);


    public Task<IReadOnlyList<DeviceView>?> ListDevicesAsync(
        UserNo user, DevicePosition? after, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, CallCosts.OfRows(limit), (store, user, after, limit),
            static (s, ct) => s.store.ListDevicesAsync(s.user, s.after, s.limit, ct),
            cancellationToken);

    public Task<Revocation> RevokeDeviceAsync(UserNo user, string deviceId, DeviceBounds bounds, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, user, deviceId, bounds),
            static (s, ct) => s.store.RevokeDeviceAsync(s.user, s.deviceId, s.bounds, ct),
            cancellationToken);
}
