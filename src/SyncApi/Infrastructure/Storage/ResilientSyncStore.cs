using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Runs every device sync call in its storage pipeline (<see cref="StoragePipelines"/>), as the device
/// reads are: bounded by the request's budget, behind the primary's circuit (a pull reads on the
/// primary, after the device's own pushes), and an unreachable database (a failover, a restart)
/// answered 503 with Retry-After instead of an error. A push is one
/// transaction whose replay is harmless (a change already stored comes back <c>unchanged</c>, and
/// <c>decide</c> recomputes every result), so it retries like a read; so does recording a pull's
/// acknowledgement (it stores the same row again). Setting an ownership (a replay would queue the
/// entitlement to devices a second time) and revoking a device are not retried.
/// </summary>
public sealed class ResilientSyncStore(PostgresSyncStore inner, StoragePipelines pipelines) : ISyncStore
{
    public Task<bool> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<HighlightId> ids,
        Func<IReadOnlyDictionary<HighlightId, HighlightState>, IReadOnlyList<HighlightState>> decide,
        CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (inner, user, ids, decide),
            static (s, ct) => s.inner.ApplyAsync(s.user, s.ids, s.decide, ct),
            cancellationToken);

    public Task<StoredChanges?> ReadChangesAsync(UserNo user, SyncPosition after, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (inner, user, after, limit),
            static (s, ct) => s.inner.ReadChangesAsync(s.user, s.after, s.limit, ct),
            cancellationToken);

    public Task<bool> SetOwnershipAsync(UserNo user, BookNo book, bool owned, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (inner, user, book, owned),
            static (s, ct) => s.inner.SetOwnershipAsync(s.user, s.book, s.owned, ct),
            cancellationToken);

    public Task RecordPullAsync(UserNo user, string deviceId, long ackedSeq, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (inner, user, deviceId, ackedSeq),
            static async (s, ct) =>
            {
                await s.inner.RecordPullAsync(s.user, s.deviceId, s.ackedSeq, ct).ConfigureAwait(false);
                return true;
            },
            cancellationToken);

    public Task<IReadOnlyList<DeviceView>?> ListDevicesAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (inner, user),
            static (s, ct) => s.inner.ListDevicesAsync(s.user, ct),
            cancellationToken);

    public Task<DateTimeOffset?> RevokeDeviceAsync(UserNo user, string deviceId, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (inner, user, deviceId),
            static (s, ct) => s.inner.RevokeDeviceAsync(s.user, s.deviceId, ct),
            cancellationToken);
}
