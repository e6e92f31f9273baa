using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs the collection calls in their storage pipelines, as <see cref="ResilientSyncStore"/> runs sync's:
/// reads on the primary are retried; a push is a plain write, never retried here (its decision runs inside
/// the store's transaction; the device's own re-send is the safe replay: an equal operation is unchanged).
/// </summary>
public sealed class ResilientCollectionStore(PostgresCollectionStore store, StoragePipelines pipelines) : ICollectionStore
{
    public Task<bool> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<Guid> ids,
        IReadOnlyCollection<BookNo> books,
        Func<CollectionSnapshot, IReadOnlyList<CollectionWrite>> decide,
        CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, CallCosts.OfRows(ids.Count), (store, user, ids, books, decide),
            static (s, ct) => s.store.ApplyAsync(s.user, s.ids, s.books, s.decide, ct),
            cancellationToken);

    public Task<IReadOnlyList<Collection>?> ListAsync(UserNo user, Guid? after, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, CallCosts.OfRows(limit), (store, user, after, limit),
            static (s, ct) => s.store.ListAsync(s.user, s.after, s.limit, ct),
            cancellationToken);

    public Task<CollectionLookup> GetAsync(UserNo user, Guid id, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, id),
            static (s, ct) => s.store.GetAsync(s.user, s.id, ct),
            cancellationToken);

    public Task<Guid?> FindLiveByNameAsync(UserNo user, string name, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, name),
            static (s, ct) => s.store.FindLiveByNameAsync(s.user, s.name, ct),
            cancellationToken);
}
