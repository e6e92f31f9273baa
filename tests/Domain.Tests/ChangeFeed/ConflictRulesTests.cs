using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

public sealed class ConflictRulesTests
{
    private static readonly HighlightId Id = new(new UserNo(1), new BookNo(7), HighlightKey.Parse("k"));
    private static readonly DateTimeOffset T0 = new(2026, 11, 22, 1, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset Now = T0.AddDays(1);

    private static ValidChange Upsert(DateTimeOffset at, string text = "t", string color = "yellow", string? note = null, long? baseVersion = null) =>
        new(Id, false, baseVersion, text, 1, 2, color, note, at);

    private static ValidChange Delete(DateTimeOffset at, long? baseVersion = null) => new(Id, true, baseVersion, null, null, null, null, null, at);

    private static HighlightState Stored(DateTimeOffset at, string text = "t", string color = "yellow", string? note = null) =>
        ConflictRules.Decide(null, Upsert(at, text, color, note), Now).State;

    [Fact]
    public void ANewHighlightIsStoredAtVersionOne()
    {
        var decision = ConflictRules.Decide(null, Upsert(T0), Now);
        Assert.Equal((ChangeStatus.Applied, 1L, T0), (decision.Status, decision.State.Version, decision.State.ModifiedAt));
    }

    [Fact]
    public void TheSameContentAgainIsUnchanged()
    {
        var stored = Stored(T0);
        Assert.Equal(ChangeStatus.Unchanged, ConflictRules.Decide(stored, Upsert(T0.AddHours(1)), Now).Status);
    }

    [Fact]
    public void AChangeOnTheStoredVersionAppliesWholeEvenWithAnOlderDeviceTime()
    {
        var stored = Stored(T0, text: "old");
        var decision = ConflictRules.Decide(stored, Upsert(T0.AddHours(-1), text: "new", baseVersion: 1), Now);
        Assert.Equal((ChangeStatus.Applied, "new", 2L), (decision.Status, decision.State.Text, decision.State.Version));
        // Field times never move back, so replaying an older concurrent edit cannot undo this one.
        Assert.Equal(T0, decision.State.Times.Text);
    }

    [Fact]
    public void ConcurrentEditsMergeFieldByFieldTheNewerFieldWinning()
    {
        var stored = ConflictRules.Decide(Stored(T0), Upsert(T0.AddMinutes(2), color: "blue", baseVersion: 1), Now).State;
        var decision = ConflictRules.Decide(stored, Upsert(T0.AddMinutes(1), color: "pink", note: "mine", baseVersion: 1), Now);
        Assert.Equal(ChangeStatus.Applied, decision.Status);
        Assert.Equal(("blue", "mine"), (decision.State.Color, decision.State.Note));
    }

    [Fact]
    public void AConcurrentEditThatWinsNoFieldIsAConflict()
    {
        var stored = ConflictRules.Decide(Stored(T0), Upsert(T0.AddMinutes(2), color: "blue", baseVersion: 1), Now).State;
        var decision = ConflictRules.Decide(stored, Upsert(T0.AddMinutes(1), color: "pink"), Now);
        Assert.Equal((ChangeStatus.Conflict, 2L), (decision.Status, decision.State.Version));
        Assert.NotNull(decision.Reason);
    }

    [Fact]
    public void AnEqualDeviceTimeKeepsTheStoredValue()
    {
        var stored = Stored(T0, color: "blue");
        Assert.Equal(ChangeStatus.Conflict, ConflictRules.Decide(stored, Upsert(T0, color: "pink"), Now).Status);
    }

    [Fact]
    public void ADeleteWinsOverAnOlderEditAndLosesToANewerOne()
    {
        var stored = Stored(T0);
        var wins = ConflictRules.Decide(stored, Delete(T0.AddMinutes(1)), Now);
        var loses = ConflictRules.Decide(stored, Delete(T0.AddMinutes(-1)), Now);
        Assert.Equal((ChangeStatus.Applied, true, (string?)null), (wins.Status, wins.State.Deleted, wins.State.Text));
        Assert.Equal(ChangeStatus.Conflict, loses.Status);
    }

    [Fact]
    public void AnEditNewerThanTheDeletionRevivesTheHighlightAndAnOlderOneLoses()
    {
        var tombstone = ConflictRules.Decide(Stored(T0), Delete(T0.AddMinutes(5)), Now).State;
        Assert.Equal(ChangeStatus.Conflict, ConflictRules.Decide(tombstone, Upsert(T0.AddMinutes(4), text: "x"), Now).Status);
        var revived = ConflictRules.Decide(tombstone, Upsert(T0.AddMinutes(6), text: "x"), Now);
        Assert.Equal((ChangeStatus.Applied, false, "x", 3L), (revived.Status, revived.State.Deleted, revived.State.Text, revived.State.Version));
    }

    [Fact]
    public void DeletingATombstoneAgainIsUnchanged()
    {
        var tombstone = ConflictRules.Decide(Stored(T0), Delete(T0.AddMinutes(5)), Now).State;
        Assert.Equal(ChangeStatus.Unchanged, ConflictRules.Decide(tombstone, Delete(T0.AddMinutes(9)), Now).Status);
    }

    [Fact]
    public void ADeviceTimeTooFarAheadIsClampedToServerTime()
    {
        var change = ChangeValidation.Check(
            new UserNo(1), new PushedChange("upsert", "7", "k", null, "t", 1, 2, "yellow", null, DeviceTime.FromInstant(Now.AddHours(1))),
            Now, TimeSpan.FromMinutes(5), out _, out var reason);
        var within = ChangeValidation.Check(
            new UserNo(1), new PushedChange("upsert", "7", "k", null, "t", 1, 2, "yellow", null, DeviceTime.FromInstant(Now.AddMinutes(4))),
            Now, TimeSpan.FromMinutes(5), out _, out _);
        Assert.Null(reason);
        Assert.Equal(Now, change!.ModifiedAt);
        Assert.Equal(Now.AddMinutes(4), within!.ModifiedAt);
    }
}
