using Kobo.Sync.SyncApi.Grpc.Wire;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

public sealed class GrpcTimeoutTests
{
    [Theory]
    [InlineData("1H", 36_000_000_000L)]
    [InlineData("2M", 1_200_000_000L)]
    [InlineData("3S", 30_000_000L)]
    [InlineData("250m", 2_500_000L)]
    [InlineData("7u", 70L)]
    [InlineData("100n", 1L)]
    [InlineData("1n", 1L)]
    [InlineData("0m", 0L)]
    [InlineData("99999999S", 999_999_990_000_000L)]
    [InlineData("99999999H", 99_999_999L * 36_000_000_000L)]
    public void EveryUnitParses(string text, long ticks)
    {
        Assert.True(GrpcTimeout.TryParse(text, out var timeout));
        Assert.Equal(TimeSpan.FromTicks(ticks), timeout);
    }

    [Theory]
    [InlineData("")]
    [InlineData("S")]
    [InlineData("10")]
    [InlineData("123456789m")]
    [InlineData("-1S")]
    [InlineData("+1S")]
    [InlineData("1.5S")]
    [InlineData(" 1S")]
    [InlineData("1s")]
    [InlineData("1h")]
    [InlineData("1d")]
    [InlineData("١S")]
    public void AnythingElseIsRefused(string text) => Assert.False(GrpcTimeout.TryParse(text, out _));

    [Theory]
    [InlineData(0L, "0u")]
    [InlineData(1L, "1u")]
    [InlineData(5_000_000L, "500000u")]
    [InlineData(10_000_000_000L, "1000000m")]
    [InlineData(36_000_000_000_000L, "3600000S")]
    public void FormattingPicksTheFinestUnitThatFitsInEightDigits(long ticks, string expected) =>
        Assert.Equal(expected, GrpcTimeout.Format(TimeSpan.FromTicks(ticks)));

    [Fact]
    public void FormattingRoundsUpSoADeadlineIsNeverShortened()
    {
        var formatted = GrpcTimeout.Format(TimeSpan.FromTicks(15));

        Assert.Equal("2u", formatted);
        Assert.True(GrpcTimeout.TryParse(formatted, out var parsed));
        Assert.True(parsed >= TimeSpan.FromTicks(15));
    }
}
