using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Library;

/// <summary>The reads of library sync, as the store must provide them. Implemented by the storage adapter.</summary>
public interface ILibraryStore
{
    /// <summary>
    /// Up to <paramref name="limit"/> changes of the user's library (ownership granted or removed) after
    /// (<paramref name="afterSeq"/>, <paramref name="afterBook"/>), in that order, with the user's change
    /// sequence read first; highlights are not read. Null when the user does not exist. One round trip.
    /// </summary>
    Task<LibraryChanges?> ReadChangesAsync(UserNo user, long afterSeq, long afterBook, int limit, CancellationToken cancellationToken);

    /// <summary>The book as it stands in the user's library (removed or not); null when the user never had it.</summary>
    Task<LibraryBook?> ReadBookAsync(UserNo user, BookNo book, CancellationToken cancellationToken);
}
