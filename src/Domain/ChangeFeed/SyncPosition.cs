namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>
/// How far a device has pulled, per change kind: the (seq, id) of the last highlight change, the
/// (seq, book) of the last entitlement change and the (seq, book) of the last reading state change it
/// received. Changes are delivered in that order, so "after the position" is a keyset range. <see cref="Start"/> lies before every change.
/// </summary>
/// <para><see cref="PagesInSync"/> counts the pages already pulled in the sync this position is in
/// the middle of (0 once a pull reached the end), so the service can tell how many pages a sync took.</para>
/// <para>A position from a token issued before reading states were pulled (format "2") has
/// <see cref="ReadingSeq"/> 0: no reading state seen yet, so the next pull delivers them all. Likewise a
/// position from a token issued before collections were pulled (formats "2" and "3") has
/// <see cref="CollectionSeq"/> 0.</para>
public readonly record struct SyncPosition(
    long HighlightSeq, string HighlightId, long EntitlementSeq, long EntitlementBook, int PagesInSync = 0, long ReadingSeq = 0, long ReadingBook = 0,
    long CollectionSeq = 0, Guid CollectionId = default)
{
    /// <summary>Sorts after every collection id (PostgreSQL orders uuids byte by byte).</summary>
    public static readonly Guid LastCollectionId = new("ffffffff-ffff-ffff-ffff-ffffffffffff");

    public static SyncPosition Start { get; } = new(0, string.Empty, 0, 0);

    /// <summary>
    /// After every highlight change numbered up to <paramref name="seq"/>: the id is past every id of
    /// the user ('~' sorts after the "ebooks/" that follows the user's prefix).
    /// </summary>
    public SyncPosition WithHighlightsThrough(Ids.UserNo user, long seq) =>
        this with { HighlightSeq = seq, HighlightId = Ids.HighlightId.UserPrefix(user) + "~" };

    /// <summary>After every entitlement change numbered up to <paramref name="seq"/>.</summary>
    public SyncPosition WithEntitlementsThrough(long seq) => this with { EntitlementSeq = seq, EntitlementBook = long.MaxValue };

    /// <summary>After every reading state change numbered up to <paramref name="seq"/>.</summary>
    public SyncPosition WithReadingStatesThrough(long seq) => this with { ReadingSeq = seq, ReadingBook = long.MaxValue };

    /// <summary>After every collection change numbered up to <paramref name="seq"/>.</summary>
    public SyncPosition WithCollectionsThrough(long seq) => this with { CollectionSeq = seq, CollectionId = LastCollectionId };

    /// <summary>
    /// After every entitlement, reading state and collection change numbered up to <paramref name="committedSeq"/>:
    /// where a pull that reached the end of those streams leaves them (a stream already past it stays).
    /// </summary>
    public SyncPosition WithLibraryThrough(long committedSeq)
    {
        var next = this;
        if (committedSeq >= next.EntitlementSeq)
        {
            next = next.WithEntitlementsThrough(committedSeq);
        }

        if (committedSeq >= next.ReadingSeq)
        {
            next = next.WithReadingStatesThrough(committedSeq);
        }

        if (committedSeq >= next.CollectionSeq)
        {
            next = next.WithCollectionsThrough(committedSeq);
        }

        return next;
    }

    public bool IsStart => this == Start;

    /// <summary>The position as one number for people: the highest change sequence the device has received.</summary>
    public long Seq => Math.Max(Math.Max(Math.Max(HighlightSeq, EntitlementSeq), ReadingSeq), CollectionSeq);

    /// <summary>The lowest of the library's streams' positions (entitlements, reading states, collections): a Kobo library sync's.</summary>
    public long LowestLibrarySeq => Math.Min(Math.Min(EntitlementSeq, ReadingSeq), CollectionSeq);

    /// <summary>The lowest of the streams' sequence positions: every change numbered up to it has been delivered.</summary>
    public long LowestSeq => Math.Min(Math.Min(Math.Min(HighlightSeq, EntitlementSeq), ReadingSeq), CollectionSeq);
}
