using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ReadingStates;

public sealed class ReadingStateValidationTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 24, 1, 0, 0, TimeSpan.Zero);
    private static readonly TimeSpan Skew = TimeSpan.FromMinutes(5);
    private static readonly DeviceTime At = DeviceTime.FromText("2026-11-24T00:30:00Z");

    private static ValidReadingState Check(PushedReadingState? put) => ReadingStateValidation.Check(put, Now, Skew);

    private static InvalidRequestException Refused(PushedReadingState? put) => Assert.Throws<InvalidRequestException>(() => Check(put));

    private static PushedReadingState Position(double? percent, string? location = null, DeviceTime? at = null) =>
        new(new PushedPosition(percent, location, at ?? At), null, null);

    [Fact]
    public void AValidPutKeepsEveryGroupItCarries()
    {
        var valid = Check(new PushedReadingState(
            new PushedPosition(42.5, "{\"Value\":\"epubcfi(/6/4)\"}", At), new PushedStatus("finished", At), new PushedStatistics(95, At)));

        var at = new DateTimeOffset(2026, 11, 24, 0, 30, 0, TimeSpan.Zero);
        Assert.Equal(new ReadingPosition(42.5, "{\"Value\":\"epubcfi(/6/4)\"}", at), valid.Position);
        Assert.Equal(new ReadingStatusMark("finished", at), valid.Status);
        Assert.Equal(new ReadingStatistics(95, at), valid.Statistics);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(100)]
    [InlineData(33.333333333333336)]
    public void APercentFrom0To100IsAccepted(double percent) => Assert.Equal(percent, Check(Position(percent)).Position!.Percent);

    [Theory]
    [InlineData(-0.0001)]
    [InlineData(100.0001)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    [InlineData(double.NegativeInfinity)]
    public void APercentOutside0To100OrNotANumberIsRefusedNamingTheField(double percent)
    {
        var error = Refused(Position(percent));
        Assert.Equal("position.percent", error.Field);
        Assert.StartsWith("position.percent must be a number from 0 to 100", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APositionWithoutAPercentIsRefused() => Assert.Equal("position.percent", Refused(Position(null)).Field);

    [Fact]
    public void ALocationOf2048CodeUnitsIsAcceptedAndOneMoreIsRefused()
    {
        Assert.Equal(2_048, Check(Position(1, new string('x', 2_048))).Position!.Location!.Length);
        Assert.Equal("position.location", Refused(Position(1, new string('x', 2_049))).Field);
    }

    // Code units rather than strings: an attribute cannot carry half a surrogate pair.
    [Theory]
    [InlineData(0x0000, "U+0000")]
    [InlineData(0xD83D, "unpaired")]
    [InlineData(0xDC00, "unpaired")]
    public void ALocationTheStoreCannotKeepIsRefused(int codeUnit, string said)
    {
        var error = Refused(Position(1, "a" + (char)codeUnit + "b"));
        Assert.Equal("position.location", error.Field);
        Assert.Contains(said, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("Reading")]
    [InlineData("ReadyToRead")]
    [InlineData("paused")]
    public void AnUnknownStatusIsRefused(string? status) =>
        Assert.Equal("status.value", Refused(new PushedReadingState(null, new PushedStatus(status, At), null)).Field);

    [Theory]
    [InlineData(null)]
    [InlineData(-1)]
    [InlineData(int.MinValue)]
    public void AMissingOrNegativeTimeSpentIsRefused(int? minutes) =>
        Assert.Equal("statistics.timeSpentMinutes", Refused(new PushedReadingState(null, null, new PushedStatistics(minutes, At))).Field);

    [Fact]
    public void ATimeSpentOfZeroIsAccepted() =>
        Assert.Equal(0, Check(new PushedReadingState(null, null, new PushedStatistics(0, At))).Statistics!.TimeSpentMinutes);

    [Fact]
    public void APutWithoutAnyGroupIsRefused()
    {
        Assert.Equal("body", Refused(new PushedReadingState(null, null, null)).Field);
        Assert.Equal("body", Refused(null).Field);
    }

    [Fact]
    public void EachGroupNeedsItsOwnTime()
    {
        Assert.Equal("position.modifiedAt", Refused(new PushedReadingState(new PushedPosition(1, null, null), null, null)).Field);
        Assert.Equal("status.modifiedAt", Refused(new PushedReadingState(null, new PushedStatus("ready", null), null)).Field);
        Assert.Equal("statistics.modifiedAt", Refused(new PushedReadingState(null, null, new PushedStatistics(1, null))).Field);
    }

    [Theory]
    [InlineData("2026-11-24T00:30:00")]
    [InlineData("yesterday")]
    [InlineData("0000-12-31T00:00:00Z")]
    public void ATimeWithoutAnOffsetOrUnreadableIsRefusedNamingTheGroup(string text)
    {
        var error = Refused(new PushedReadingState(null, new PushedStatus("ready", DeviceTime.FromText(text)), null));
        Assert.Equal("status.modifiedAt", error.Field);
        Assert.StartsWith("status.modifiedAt: ", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ATimeBeforeTheEpochIsRefused() =>
        Assert.Equal("position.modifiedAt", Refused(Position(1, at: DeviceTime.FromUnix(-1, 0))).Field);

    [Fact]
    public void ATimeTooFarAheadIsClampedToServerTimeAndOneWithinTheSkewIsKept()
    {
        Assert.Equal(Now, Check(Position(1, at: DeviceTime.FromInstant(Now.AddHours(1)))).Position!.ModifiedAt);
        Assert.Equal(Now.AddMinutes(4), Check(Position(1, at: DeviceTime.FromInstant(Now.AddMinutes(4)))).Position!.ModifiedAt);
    }
}
