using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

public sealed class DeviceTimeTests
{
    private static DateTimeOffset Resolved(DeviceTime time)
    {
        Assert.True(time.TryResolve(out var at, out var reason), reason);
        return at;
    }

    private static string Rejection(DeviceTime time)
    {
        Assert.False(time.TryResolve(out _, out var reason));
        Assert.StartsWith("modifiedAt: ", reason, StringComparison.Ordinal);
        return reason;
    }

    [Theory]
    [InlineData("2026-11-22T01:00:00Z", "2026-11-22T01:00:00Z")]
    [InlineData("2026-11-22T02:30:00+01:30", "2026-11-22T01:00:00Z")]
    [InlineData("2026-11-21T20:00:00-05", "2026-11-22T01:00:00Z")]
    [InlineData("2026-11-22T01:00Z", "2026-11-22T01:00:00Z")]
    [InlineData("2026-11-22T01:00:00.1234567+00:00", "2026-11-22T01:00:00.123456Z")]
    [InlineData("2026-11-22T01:00:00.123456789123Z", "2026-11-22T01:00:00.123456Z")]
    [InlineData("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z")]
    [InlineData("9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.999999Z")]
    public void TextWithAnOffsetIsTheInstantItNamesInWholeMicroseconds(string text, string expected)
    {
        Assert.Equal(DateTimeOffset.Parse(expected, System.Globalization.CultureInfo.InvariantCulture), Resolved(DeviceTime.FromText(text)));
    }

    [Theory]
    [InlineData("2026-11-22T01:00:00", "has no offset")]
    [InlineData("2026-11-22T01:00:00.5", "has no offset")]
    [InlineData("2026-11-22", "not an ISO 8601")]
    [InlineData("2026-11-22 01:00:00Z", "not an ISO 8601")]
    [InlineData("2026-02-29T01:00:00Z", "not an ISO 8601")]
    [InlineData("2026-11-22T24:00:00Z", "not an ISO 8601")]
    [InlineData("2026-11-22T01:00:00.Z", "not an ISO 8601")]
    [InlineData("2026-11-22T01:00:00+0100", "not an ISO 8601")]
    [InlineData("2026-11-22T01:00:00+24:00", "not an ISO 8601")]
    [InlineData("2026-11-22t01:00:00z", "not an ISO 8601")]
    [InlineData("1969-12-31T23:59:59.999999Z", "outside the accepted range, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z")]
    [InlineData("9999-12-31T23:59:59-00:01", "outside the accepted range")]
    [InlineData("0001-01-01T00:00:00Z", "outside the accepted range")]
    public void TextWithoutAnOffsetOrOutOfRangeIsRejectedWithItsReason(string text, string reason)
    {
        Assert.Contains(reason, Rejection(DeviceTime.FromText(text)), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0L, 0, true)]
    [InlineData(253_402_300_799L, 999_999_999, true)]
    [InlineData(253_402_300_800L, 0, false)]
    [InlineData(-1L, 999_999_999, false)]
    [InlineData(long.MinValue, 0, false)]
    [InlineData(long.MaxValue, 0, false)]
    [InlineData(0L, -1, false)]
    [InlineData(0L, 1_000_000_000, false)]
    public void SecondsAndNanosAreAcceptedFromTheEpochToTheEndOfYear9999(long seconds, int nanos, bool accepted)
    {
        Assert.Equal(accepted, DeviceTime.FromUnix(seconds, nanos).TryResolve(out _, out _));
    }

    [Fact]
    public void NanosecondsAreCutToWholeMicroseconds()
    {
        Assert.Equal(DateTimeOffset.UnixEpoch.AddTicks(1_234_560), Resolved(DeviceTime.FromUnix(0, 123_456_999)));
    }

    [Fact]
    public void AnInstantRoundTripsThroughSecondsAndNanos()
    {
        var at = new DateTimeOffset(2026, 11, 22, 1, 0, 0, TimeSpan.FromHours(2)).AddTicks(1_234_560);

        Assert.Equal(at, Resolved(DeviceTime.FromInstant(at)));
        Assert.False(DeviceTime.FromInstant(DateTimeOffset.UnixEpoch.AddTicks(-10)).TryResolve(out _, out _));
    }
}
