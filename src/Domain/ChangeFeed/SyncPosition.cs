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
/// <para><see cref="WrittenSeq"/> is the device's own last write that the token knows of (a push's answer
/// sets it): the user's change sequence after that write, which a read must see (from a standby only
/// once it has replayed that far). 0 when none.</para>
public readonly record struct SyncPosition(
    long HighlightSeq, string HighlightId, long EntitlementSeq, long EntitlementBook,
    int PagesInSync = 0, long ReadingSeq = 0, long ReadingBook = 0,
    long CollectionSeq = 0, Guid CollectionId = default, long WrittenSeq = 0)
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

    /// <summary>Before every change: a full sync (whatever the device wrote).</summary>
    public bool IsStart => this with { WrittenSeq = 0 } == Start;

    /// <summary>The position as one number for people: the highest change sequence the device has received.</summary>
    public long Seq => Math.Max(Math.Max(Math.Max(HighlightSeq, EntitlementSeq), ReadingSeq), CollectionSeq);

    /// <summary>
    /// Whether every library change (entitlements, reading states, collections) numbered up to
    /// <paramref name="committedSeq"/> has been delivered: a Kobo library sync from here finds nothing new.
    /// </summary>
    public bool HasLibraryThrough(long committedSeq) =>
        Through(EntitlementSeq, EntitlementBook == long.MaxValue, committedSeq)
        && Through(ReadingSeq, ReadingBook == long.MaxValue, committedSeq)
        && Through(CollectionSeq, CollectionId == LastCollectionId, committedSeq);

    /// <summary>
    /// Whether every change of every stream numbered up to <paramref name="committedSeq"/> has been delivered: a pull from here finds
    /// nothing new.
    /// </summary>
    public bool HasAllThrough(Ids.UserNo user, long committedSeq) =>
        HasLibraryThrough(committedSeq) && Through(HighlightSeq, IsPastEveryHighlight(user), committedSeq);

    /// <summary>
    /// A stream at (seq, key) has delivered every change numbered up to <paramref name="committedSeq"/> when it
    /// is past it, or at it with a number of its own (every write takes one; only rows loaded in bulk share
    /// sequence 0, so a position at 0 must also be past every key).
    /// </summary>
    private static bool Through(long seq, bool pastEveryKey, long committedSeq) =>
        seq > committedSeq || (seq == committedSeq && (seq > 0 || pastEveryKey));

    private bool IsPastEveryHighlight(Ids.UserNo user)
    {
        var prefix = Ids.HighlightId.UserPrefix(user);
        return HighlightId.Length == prefix.Length + 1 && HighlightId.StartsWith(prefix, StringComparison.Ordinal)
            && HighlightId[^1] == '~';
    }

    /// <summary>The lowest of the streams' sequence positions: every change numbered up to it has been delivered.</summary>
    public long LowestSeq => Math.Min(Math.Min(Math.Min(HighlightSeq, EntitlementSeq), ReadingSeq), CollectionSeq);
}
