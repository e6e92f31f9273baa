using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;

namespace Kobo.Sync.Domain.Library;

/// <summary>
/// A book in a user's library as a reading device lists it: the catalogue's title, author and
/// language, when the user got it, when their ownership last changed, whether it was removed, and the
/// user's reading state of it (null when no device has written one: a book never opened). A device
/// learns a book and where the reader is in it from the same item, so both are read together.
/// </summary>
public sealed record LibraryBook(
    BookNo Book, string Title, string? Author, string? Language, bool Removed, DateTimeOffset AcquiredAt, DateTimeOffset ModifiedAt,
    ReadingState? ReadingState = null)
{
    /// <summary>The file a device downloads (KEPUB when the book has one); null when the catalogue states none.</summary>
    public BookFile? File { get; init; }
}

/// <summary>
/// A changed reading state of a book in the user's library, with when the user got the book: a
/// device's reading state is dated from the book's arrival in the library (its <c>Created</c>).
/// </summary>
public sealed record LibraryReadingState(ReadingState State, DateTimeOffset AcquiredAt);

/// <summary>
/// Changes of a user's library after a position, each with its sequence number: ownership changes and
/// reading state changes, each kind in its position order, and the user's change sequence read before
/// them: every change numbered up to it was committed and visible to the read.
/// </summary>
public sealed record LibraryChanges(
    IReadOnlyList<(long Seq, LibraryBook Book)> Books,
    IReadOnlyList<(long Seq, LibraryReadingState State)> ReadingStates, long CommittedSeq)
{
    /// <summary>The purged collection tombstones' highest seq (0 when none): a position before it may have missed a deletion.</summary>
    public long PurgedCollectionSeq { get; init; }

    /// <summary>Collection changes, in (seq, collection id) order: the device's tags.</summary>
    public IReadOnlyList<(long Seq, Collections.Collection Collection)> Collections { get; init; } = [];
}
