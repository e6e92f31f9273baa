using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>The writes and the change feed of device sync, as the store must provide them. Implemented by the storage adapter.</summary>
public interface ISyncStore
{
    /// <summary>
    /// One write transaction for one user: takes the user's change sequence (serialising the user's
    /// writes) and reads the user's <see cref="HighlightHoldings"/>, loads the stored states of
    /// <paramref name="ids"/> (absent when not stored), lets <paramref name="decide"/> choose the states to
    /// store (an exception it throws stores nothing), and stores them with fresh sequence numbers and server
    /// versions as decided, changing the holdings by <see cref="HighlightHoldings.Change"/>. Returns the user's
    /// change sequence after the last change stored (before the transaction when none was): what a read must
    /// see to show the device its push. Null when the user does not exist.
    /// </summary>
    Task<long?> ApplyAsync(
        UserNo user,
        IReadOnlyCollection<HighlightId> ids,
        Func<IReadOnlyDictionary<HighlightId, HighlightState>, HighlightHoldings, IReadOnlyList<HighlightState>> decide,
        CancellationToken cancellationToken);

    /// <summary>
    /// Up to <paramref name="limit"/> highlight changes, up to <paramref name="limit"/> entitlement
    /// changes, up to <paramref name="limit"/> reading state changes and up to <paramref name="limit"/> collection changes after
    /// <paramref name="after"/>, each kind in its position order, with the user's change sequence read first and the purge horizon read
    /// last; null when the user does not exist. One round trip, where the sequence is at least <paramref name="after"/>'s
    /// <see cref="SyncPosition.WrittenSeq"/>. The highlights may stop early, by <see cref="SyncChange.PageBytes"/>: at least the
    /// first two, and then each whose predecessors measure at most <paramref name="maxBytes"/> together.
    /// So when any are left out, those returned measure more than <paramref name="maxBytes"/> and a page
    /// within the budget cannot take them all; the ones left out are never needed. The collections stop early
    /// the same way, by their name and books.
    /// </summary>
    Task<StoredChanges?> ReadChangesAsync(UserNo user, SyncPosition after, int limit, long maxBytes, CancellationToken cancellationToken);

    /// <summary>
    /// Grants (or, with <paramref name="owned"/> false, removes) a book; a change devices pull. False when the user or book does not exist.
    /// </summary>
    Task<bool> SetOwnershipAsync(UserNo user, BookNo book, bool owned, CancellationToken cancellationToken);

    /// <summary>
    /// Where the user's change sequence stands (every change numbered up to it is committed), read where it
    /// is at least <paramref name="written"/> (the device's own last write: a standby only once it has
    /// replayed that far); null when the user does not exist. One indexed read.
    /// </summary>
    Task<long?> ReadCommittedSeqAsync(UserNo user, long written, CancellationToken cancellationToken);
}

/// <summary>
/// Changes read from the store, each with its sequence number. <see cref="CommittedSeq"/> is the
/// user's change sequence read before the changes: every change numbered up to it was committed
/// and so visible to the reads that followed.
/// </summary>
public sealed record StoredChanges(
    IReadOnlyList<(long Seq, HighlightState State)> Highlights,
    IReadOnlyList<(long Seq, EntitlementState State)> Entitlements,
    long CommittedSeq,
    long PurgedHighlightSeq)
{
    /// <summary>Reading state changes, in (seq, book) order.</summary>
    public IReadOnlyList<(long Seq, ReadingStates.ReadingState State)> ReadingStates { get; init; } = [];

    /// <summary>The purged collection tombstones' highest seq (0 when none), read with the highlights' horizon.</summary>
    public long PurgedCollectionSeq { get; init; }

    /// <summary>Collection changes (the whole current collection), in (seq, collection id) order.</summary>
    public IReadOnlyList<(long Seq, Collections.Collection Collection)> Collections { get; init; } = [];
}
