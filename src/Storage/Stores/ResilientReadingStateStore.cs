using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs the reading state calls in their storage pipelines, as <see cref="ResilientSyncStore"/> runs
/// sync's: a read on the primary is retried; a put is a plain write, never retried here (its decision
/// runs inside the store's transaction; the device's own re-send is the safe replay: an equal group
/// is unchanged).
/// </summary>
public sealed class ResilientReadingStateStore(PostgresReadingStateStore store, StoragePipelines pipelines) : IReadingStateStore
{
    public Task<ReadingStateLookup> GetAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, book),
            static (s, ct) => s.store.GetAsync(s.user, s.book, ct),
            cancellationToken);

    public Task<ReadingStateLookup> ApplyAsync(
        UserNo user, BookNo book, Func<ReadingState?, ReadingStateDecision> decide, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (store, user, book, decide),
            static (s, ct) => s.store.ApplyAsync(s.user, s.book, s.decide, ct),
            cancellationToken);
}
