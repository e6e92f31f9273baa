using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs the Kobo annotation calls in their storage pipelines, as <see cref="ResilientSyncStore"/> runs sync's:
/// reads on the primary, retried; recording what an e-reader sent is an upsert of the same row, retried too.
/// A book's download reads up to all its annotations (thousands), so it is weighed as the heavy pulls are
/// (<see cref="CallCosts.OfRows"/>): one user's downloads overrunning their budget never open the circuit
/// every device shares.
/// </summary>
public sealed class ResilientKoboAnnotationStore(PostgresKoboAnnotationStore store, StoragePipelines pipelines) : IKoboAnnotationStore
{
    public Task<bool> OwnsBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, book),
            static (s, ct) => s.store.OwnsBookAsync(s.user, s.book, ct),
            cancellationToken);

    public Task RecordReceivedAsync(UserNo user, string eReader, BookNo book, bool withheld, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, user, eReader, book, withheld),
            static (s, ct) => s.store.RecordReceivedAsync(s.user, s.eReader, s.book, s.withheld, ct),
            cancellationToken);

    public Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(
        UserNo user, string eReader, IReadOnlyCollection<BookNo> books, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, eReader, books),
            static (s, ct) => s.store.ReadStatesAsync(s.user, s.eReader, s.books, ct),
            cancellationToken);

    public Task<KoboBookAnnotations> ReadBookAsync(
        UserNo user, string eReader, BookNo book, int limit, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, CallCosts.OfRows(limit), (store, user, eReader, book, limit),
            static (s, ct) => s.store.ReadBookAsync(s.user, s.eReader, s.book, s.limit, ct),
            cancellationToken);
}
