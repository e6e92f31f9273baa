using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs library sync's reads in their storage pipeline, as <see cref="ResilientSyncStore"/> runs sync's: reads on the primary, retried.
/// </summary>
public sealed class ResilientLibraryStore(PostgresLibraryStore store, StoragePipelines pipelines) : ILibraryStore
{
    public Task<LibraryChanges?> ReadChangesAsync(
        UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, after, limit, maxBytes),
            static (s, ct) => s.store.ReadChangesAsync(s.user, s.after, s.limit, s.maxBytes, ct),
            cancellationToken);

    public Task<long?> ReadCommittedSeqAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user),
            static (s, ct) => s.store.ReadCommittedSeqAsync(s.user, ct),
            cancellationToken);

    public Task<LibraryBook?> ReadBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, book),
            static (s, ct) => s.store.ReadBookAsync(s.user, s.book, ct),
            cancellationToken);
}
