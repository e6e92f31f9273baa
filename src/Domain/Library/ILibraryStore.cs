using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Library;

/// <summary>The reads of library sync, as the store must provide them. Implemented by the storage adapter.</summary>
public interface ILibraryStore
{
    /// <summary>
    /// Up to <paramref name="limit"/> ownership changes (granted or removed) after the position's
    /// (<see cref="SyncPosition.EntitlementSeq"/>, <see cref="SyncPosition.EntitlementBook"/>) and up to
    /// <paramref name="limit"/> reading state changes after its (<see cref="SyncPosition.ReadingSeq"/>,
    /// <see cref="SyncPosition.ReadingBook"/>) and up to <paramref name="limit"/> collection changes after its
    /// (<see cref="SyncPosition.CollectionSeq"/>, <see cref="SyncPosition.CollectionId"/>), each in that order,
    /// with the user's change sequence read first and the collections' purge horizon last; highlights are not
    /// read. Null when the user does not exist. One round trip. The collections may stop early, as
    /// <see cref="ISyncStore.ReadChangesAsync"/> stops them: at least the first two, then each whose
    /// predecessors measure at most <paramref name="maxBytes"/> together by the native pull's measure, which
    /// is never larger than a tag's; so a page within <paramref name="maxBytes"/> never needs one left out.
    /// </summary>
    Task<LibraryChanges?> ReadChangesAsync(UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken);

    /// <summary>
    /// Where the user's change sequence stands (<see cref="ISyncStore.ReadCommittedSeqAsync"/>); null when the user does not exist. One
    /// indexed read.
    /// </summary>
    Task<long?> ReadCommittedSeqAsync(UserNo user, CancellationToken cancellationToken);

    /// <summary>The book as it stands in the user's library (removed or not); null when the user never had it.</summary>
    Task<LibraryBook?> ReadBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken);
}
