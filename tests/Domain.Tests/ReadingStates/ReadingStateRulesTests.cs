using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ReadingStates;

public sealed class ReadingStateRulesTests
{
    private static readonly BookNo Book = new(7);
    private static readonly DateTimeOffset T0 = new(2026, 11, 22, 1, 0, 0, TimeSpan.Zero);

    private static ValidReadingState Position(double percent, DateTimeOffset at, string? location = null) =>
        new(new ReadingPosition(percent, location, at), null, null);

    private static ValidReadingState Status(string value, DateTimeOffset at) => new(null, new ReadingStatusMark(value, at), null);

    private static ValidReadingState Minutes(int minutes, DateTimeOffset at) => new(null, null, new ReadingStatistics(minutes, at));

    private static ReadingState Stored(params ValidReadingState[] puts)
    {
        ReadingState? state = null;
        foreach (var put in puts)
        {
            state = ReadingStateRules.Decide(Book, state, put).State;
        }

        return state!;
    }

    [Fact]
    public void AFirstPutIsAppliedAndStoresOnlyTheGroupsItCarries()
    {
        var decision = ReadingStateRules.Decide(Book, null, Position(12.5, T0, "loc"));

        Assert.True(decision.Writes);
        Assert.Equal(new ReadingStateResults(ChangeStatus.Applied, null, null), decision.Results);
        Assert.Equal(new ReadingPosition(12.5, "loc", T0), decision.State.Position);
        Assert.Null(decision.State.Status);
        Assert.Null(decision.State.Statistics);
        Assert.Equal(T0, decision.State.ModifiedAt);
    }

    [Fact]
    public void ANewerPositionMovesThePosition()
    {
        var stored = Stored(Position(10, T0));
        var decision = ReadingStateRules.Decide(Book, stored, Position(40, T0.AddMinutes(1)));
        Assert.Equal((ChangeStatus.Applied, 40d), (decision.Results.Position, decision.State.Position!.Percent));
    }

    [Fact]
    public void AStaleDevicesOlderPositionDoesNotMoveThePositionBackwards()
    {
        var stored = Stored(Position(80, T0.AddHours(2)));

        var decision = ReadingStateRules.Decide(Book, stored, Position(20, T0));

        Assert.False(decision.Writes);
        Assert.Equal(ChangeStatus.Conflict, decision.Results.Position);
        Assert.Equal(new ReadingPosition(80, null, T0.AddHours(2)), decision.State.Position);
    }

    [Fact]
    public void ATieKeepsWhatIsStored()
    {
        var stored = Stored(Position(50, T0));
        var decision = ReadingStateRules.Decide(Book, stored, Position(60, T0));
        Assert.Equal((ChangeStatus.Conflict, 50d, false), (decision.Results.Position, decision.State.Position!.Percent, decision.Writes));
    }

    [Fact]
    public void ReSendingTheSamePutIsUnchangedAndWritesNothing()
    {
        var put = new ValidReadingState(new ReadingPosition(50, "l", T0), new ReadingStatusMark(ReadingStatuses.Reading, T0), new ReadingStatistics(9, T0));
        var stored = Stored(put);

        var decision = ReadingStateRules.Decide(Book, stored, put);

        Assert.False(decision.Writes);
        Assert.Equal(new ReadingStateResults(ChangeStatus.Unchanged, ChangeStatus.Unchanged, ChangeStatus.Unchanged), decision.Results);
        Assert.Equal(stored, decision.State);
    }

    [Fact]
    public void TheSameValueSentLaterKeepsItsLaterTimeSoAnOlderPutStillLoses()
    {
        var stored = Stored(Position(50, T0));
        var again = ReadingStateRules.Decide(Book, stored, Position(50, T0.AddHours(2)));
        Assert.Equal((ChangeStatus.Unchanged, true), (again.Results.Position, again.Writes));

        var stale = ReadingStateRules.Decide(Book, again.State, Position(30, T0.AddHours(1)));

        Assert.Equal((ChangeStatus.Conflict, 50d), (stale.Results.Position, stale.State.Position!.Percent));
    }

    [Fact]
    public void AnotherLocationAtTheSamePercentIsAnotherPosition()
    {
        var stored = Stored(Position(50, T0, "a"));
        var decision = ReadingStateRules.Decide(Book, stored, Position(50, T0.AddMinutes(1), "b"));
        Assert.Equal((ChangeStatus.Applied, "b"), (decision.Results.Position, decision.State.Position!.Location));
    }

    [Fact]
    public void EachGroupIsDecidedOnItsOwnTime()
    {
        // Stored: a position from 10:00, a status from 12:00. The put: its position is newer, its status older.
        var stored = Stored(Position(10, T0), Status(ReadingStatuses.Finished, T0.AddHours(2)));
        var put = new ValidReadingState(
            new ReadingPosition(30, null, T0.AddHours(1)), new ReadingStatusMark(ReadingStatuses.Reading, T0.AddHours(1)), null);

        var decision = ReadingStateRules.Decide(Book, stored, put);

        Assert.Equal(new ReadingStateResults(ChangeStatus.Applied, ChangeStatus.Conflict, null), decision.Results);
        Assert.Equal(30, decision.State.Position!.Percent);
        Assert.Equal(ReadingStatuses.Finished, decision.State.Status!.Value);
        Assert.True(decision.Writes);
    }

    [Fact]
    public void APartialPutLeavesTheOtherGroupsAsStored()
    {
        var stored = Stored(Position(10, T0), Status(ReadingStatuses.Reading, T0));

        var decision = ReadingStateRules.Decide(Book, stored, Minutes(42, T0.AddMinutes(5)));

        Assert.Equal(new ReadingStateResults(null, null, ChangeStatus.Applied), decision.Results);
        Assert.Equal(stored.Position, decision.State.Position);
        Assert.Equal(stored.Status, decision.State.Status);
        Assert.Equal(new ReadingStatistics(42, T0.AddMinutes(5)), decision.State.Statistics);
        Assert.Equal(T0.AddMinutes(5), decision.State.ModifiedAt);
    }
}
