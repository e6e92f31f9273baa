using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Collections;

/// <summary>The collections as the store must provide them. Implemented by the storage adapter.</summary>
public interface ICollectionStore
{
    /// <summary>
    /// One write transaction for one user: takes the user's change sequence (serialising the user's
    /// writes, as a highlight push does), loads the stored collections of <paramref name="ids"/> with all
    /// their membership registers, the user's count of live collections and which of <paramref name="books"/>
    /// the user has (or had) in their library, lets <paramref name="decide"/> choose the writes (an exception
    /// it throws stores nothing), and stores each with a fresh sequence number, notifying live pull.
    /// False when the user does not exist.
    /// </summary>
    Task<bool> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<Guid> ids,
        IReadOnlyCollection<BookNo> books,
        Func<CollectionSnapshot, IReadOnlyList<CollectionWrite>> decide,
        CancellationToken cancellationToken);

    /// <summary>
    /// Up to <paramref name="limit"/> of the user's live collections with ids after <paramref name="after"/>
    /// (from the first when null), in id order; null when the user does not exist.
    /// </summary>
    Task<IReadOnlyList<Collection>?> ListAsync(UserNo user, Guid? after, int limit, CancellationToken cancellationToken);

    /// <summary>
    /// The collection (deleted or not); null when the user has none with this id; <see cref="CollectionLookup.UnknownUser"/> when the user
    /// does not exist.
    /// </summary>
    Task<CollectionLookup> GetAsync(UserNo user, Guid id, CancellationToken cancellationToken);

    /// <summary>The user's live collection with this name (the first by id when several share it); null when none.</summary>
    Task<Guid?> FindLiveByNameAsync(UserNo user, string name, CancellationToken cancellationToken);
}

/// <summary>What a push's decision starts from, read under the user's lock.</summary>
public sealed record CollectionSnapshot(IReadOnlyDictionary<Guid, CollectionState> Stored, int LiveCount, IReadOnlySet<BookNo> OwnedBooks)
{
    /// <summary>The user's collections stored, live and deleted (tombstones kept until the purge).</summary>
    public int StoredCount { get; init; } = LiveCount;
}

/// <summary>A collection to store as decided, with the books whose membership registers changed.</summary>
public sealed record CollectionWrite(CollectionState State, IReadOnlyCollection<BookNo> ChangedBooks);

/// <summary>Whether the user exists, and their collection when they have it.</summary>
public sealed record CollectionLookup(bool UserExists, Collection? Collection)
{
    public static CollectionLookup UnknownUser { get; } = new(false, null);
}
