namespace Kobo.Sync.Domain.Sync;

/// <summary>
/// How far a device has pulled, per change kind: the (seq, id) of the last highlight change and the
/// (seq, book) of the last entitlement change it received. Changes are delivered in that order, so
/// "after the position" is a keyset range. <see cref="Start"/> lies before every change.
/// </summary>
/// <para><see cref="PagesInSync"/> counts the pages already pulled in the sync this position is in
/// the middle of (0 once a pull reached the end), so the service can tell how many pages a sync took.</para>
public readonly record struct SyncPosition(long HighlightSeq, string HighlightId, long EntitlementSeq, long EntitlementBook, int PagesInSync = 0)
{
    public static SyncPosition Start { get; } = new(0, string.Empty, 0, 0);

    /// <summary>
    /// After every highlight change numbered up to <paramref name="seq"/>: the id is past every id of
    /// the user ('~' sorts after the "ebooks/" that follows the user's prefix).
    /// </summary>
    public SyncPosition WithHighlightsThrough(Ids.UserNo user, long seq) =>
        this with { HighlightSeq = seq, HighlightId = Ids.HighlightId.UserPrefix(user) + "~" };

    /// <summary>After every entitlement change numbered up to <paramref name="seq"/>.</summary>
    public SyncPosition WithEntitlementsThrough(long seq) => this with { EntitlementSeq = seq, EntitlementBook = long.MaxValue };

    public bool IsStart => this == Start;

    /// <summary>The position as one number for people: the highest change sequence the device has received.</summary>
    public long Seq => Math.Max(HighlightSeq, EntitlementSeq);
}
