using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

/// <summary>A highlight's Kobo location is part of its range: it moves with start and length under range_at.</summary>
public sealed class LocationConflictRulesTests
{
    private const string Here = """{"span":{"chapterFilename":"text/part0004.html","startChar":0,"endChar":64}}""";
    private const string There = """{"span":{"chapterFilename":"text/part0009.html","startChar":3,"endChar":9}}""";
    private static readonly HighlightId Id = new(new UserNo(1), new BookNo(7), HighlightKey.Parse("k"));
    private static readonly DateTimeOffset T0 = new(2026, 11, 22, 1, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset Now = T0.AddDays(1);

    private static ValidChange Upsert(DateTimeOffset at, string? location, int start = 1, string color = "yellow", long? baseVersion = null) =>
        new(Id, false, baseVersion, "t", start, 2, color, null, at, location);

    private static HighlightState Stored(DateTimeOffset at, string? location) => ConflictRules.Decide(null, Upsert(at, location), Now).State;

    [Fact]
    public void ANewHighlightKeepsItsLocationAsSent()
    {
        Assert.Equal(Here, Stored(T0, Here).Location);
    }

    [Fact]
    public void TheSameLocationAgainIsUnchangedAndAnotherIsAChange()
    {
        var stored = Stored(T0, Here);
        Assert.Equal(ChangeStatus.Unchanged, ConflictRules.Decide(stored, Upsert(T0.AddHours(1), Here), Now).Status);
        var moved = ConflictRules.Decide(stored, Upsert(T0.AddHours(1), There), Now);
        Assert.Equal((ChangeStatus.Applied, There), (moved.Status, moved.State.Location));
    }

    [Fact]
    public void ANewerRangeEditTakesTheLocationWithTheStartAndANewerColourEditLeavesIt()
    {
        var stored = Stored(T0, Here);
        // A newer colour edit from a device that still shows the old place: the colour wins; the range (with its location) is newer there.
        var rangeEdit = ConflictRules.Decide(stored, Upsert(T0.AddMinutes(2), There, start: 5, baseVersion: 1), Now).State;
        var colourEdit = ConflictRules.Decide(rangeEdit, Upsert(T0.AddMinutes(1), Here, start: 1, color: "blue"), Now);
        Assert.Equal(ChangeStatus.Applied, colourEdit.Status);
        Assert.Equal(("blue", 5, There), (colourEdit.State.Color, colourEdit.State.Start, colourEdit.State.Location));
    }

    [Fact]
    public void AStaleLocationEditLosesToTheStoredRange()
    {
        var stored = ConflictRules.Decide(Stored(T0, Here), Upsert(T0.AddMinutes(2), There, baseVersion: 1), Now).State;
        var stale = ConflictRules.Decide(stored, Upsert(T0.AddMinutes(1), Here), Now);
        Assert.Equal((ChangeStatus.Conflict, There), (stale.Status, stale.State.Location));
    }

    [Fact]
    public void ANewerEditWithoutALocationClearsIt()
    {
        var decision = ConflictRules.Decide(Stored(T0, Here), Upsert(T0.AddMinutes(1), null), Now);
        Assert.Equal((ChangeStatus.Applied, (string?)null), (decision.Status, decision.State.Location));
    }

    [Fact]
    public void ATombstoneClearsTheLocation()
    {
        var deleted = ConflictRules.Decide(Stored(T0, Here), new ValidChange(Id, true, null, null, null, null, null, null, T0.AddMinutes(1)), Now);
        Assert.Equal((true, (string?)null), (deleted.State.Deleted, deleted.State.Location));
    }
}
