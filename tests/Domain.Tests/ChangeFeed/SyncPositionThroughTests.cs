using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

/// <summary>
/// When a position has delivered every change up to the user's committed sequence, so that a sync from it
/// is answered without reading a change: past it in every stream, or at it with a number of the stream's
/// own; at 0, where rows loaded in bulk all sit, only past every key.
/// </summary>
public sealed class SyncPositionThroughTests
{
    private static readonly UserNo User = new(42);

    private static SyncPosition CaughtUp(long committed) =>
        SyncPosition.Start.WithHighlightsThrough(User, committed).WithLibraryThrough(committed);

    [Theory]
    [InlineData(0)]
    [InlineData(17)]
    public void APositionCaughtUpAtTheCommittedSequenceHasEverythingThrough(long committed)
    {
        Assert.True(CaughtUp(committed).HasAllThrough(User, committed));
        Assert.True(CaughtUp(committed).HasLibraryThrough(committed));
    }

    [Fact]
    public void APositionBehindTheCommittedSequenceInAnyStreamHasNot()
    {
        Assert.False(CaughtUp(16).HasAllThrough(User, 17));
        Assert.False((CaughtUp(17) with { ReadingSeq = 16 }).HasAllThrough(User, 17));
        Assert.False((CaughtUp(17) with { CollectionSeq = 3 }).HasLibraryThrough(17));
        Assert.False((CaughtUp(17) with { HighlightSeq = 9, HighlightId = "highlights/users42-ebooks/7/k1" }).HasAllThrough(User, 17));
    }

    [Fact]
    public void AtAChangesOwnNumberTheKeyDoesNotMatter()
    {
        // The last highlight delivered was change 17 itself: nothing else is numbered 17.
        var position = CaughtUp(17) with { HighlightSeq = 17, HighlightId = "highlights/users42-ebooks/7/k1" };

        Assert.True(position.HasAllThrough(User, 17));
    }

    [Fact]
    public void AtZeroADeviceBackFromADrawerStillHasEveryBulkLoadedHighlightToFetch()
    {
        // Its library is current (past every key at 0), its highlights from the start: rows loaded in bulk
        // all have sequence 0, and a user who never pushed has a committed sequence of 0 too.
        var drawer = SyncPosition.Start.WithEntitlementsThrough(0).WithReadingStatesThrough(0).WithCollectionsThrough(0);

        Assert.False(drawer.HasAllThrough(User, 0));
        Assert.True(drawer.HasLibraryThrough(0));
        Assert.False((CaughtUp(0) with { EntitlementBook = 7 }).HasLibraryThrough(0));
        Assert.False((CaughtUp(0) with { HighlightId = "highlights/users4-~" }).HasAllThrough(User, 0));
    }
}
