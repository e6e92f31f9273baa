using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>What the Kobo annotation endpoints need from the store beyond device sync. Implemented by the storage adapter.</summary>
public interface IKoboAnnotationStore
{
    /// <summary>True when the user owns the book now (granted and not removed).</summary>
    Task<bool> OwnsBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken);

    /// <summary>
    /// Records that the e-reader <paramref name="eReader"/> has sent annotations of the book and, with
    /// <paramref name="withheld"/>, one the service could not hold; once withheld, a book stays so.
    /// </summary>
    Task RecordReceivedAsync(UserNo user, string eReader, BookNo book, bool withheld, CancellationToken cancellationToken);

    /// <summary>The states of <paramref name="books"/> for this e-reader, in no particular order (one per distinct book).</summary>
    Task<IReadOnlyList<KoboBookState>> ReadStatesAsync(
        UserNo user, string eReader, IReadOnlyCollection<BookNo> books, CancellationToken cancellationToken);

    /// <summary>
    /// The book's state for this e-reader and up to <paramref name="limit"/> of its live highlights that carry a location, in id order.
    /// </summary>
    Task<KoboBookAnnotations> ReadBookAsync(UserNo user, string eReader, BookNo book, int limit, CancellationToken cancellationToken);
}

/// <summary>
/// A book's annotations as the Kobo front sees them for one e-reader: whether the user owns it, whether
/// the e-reader has sent annotations of it (and one the service could not hold), the highest change
/// number of its highlights (tombstones included) and how many live highlights carry a location.
/// </summary>
public sealed record KoboBookState(BookNo Book, bool Owned, bool Received, bool Withheld, long LastSeq, int Located);

/// <summary>A book's state and its live highlights that carry a location.</summary>
public sealed record KoboBookAnnotations(KoboBookState State, IReadOnlyList<HighlightView> Highlights);
