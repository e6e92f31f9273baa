using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.Ids;

public sealed class EntityNoTests
{
    [Theory]
    [InlineData("1", 1)]
    [InlineData("5101859", 5101859)]
    [InlineData("999999999999999999", 999_999_999_999_999_999)]
    public void CanonicalPositiveNumbersParse(string text, long expected)
    {
        Assert.True(UserNo.TryParse(text, out var user));
        Assert.Equal(expected, user.Value);
        Assert.Equal(text, user.ToString());
        Assert.True(BookNo.TryParse(text, out var book));
        Assert.Equal(expected, book.Value);
    }

    [Theory]
    [InlineData("")]
    [InlineData("0")]
    [InlineData("007")]
    [InlineData("-1")]
    [InlineData("+1")]
    [InlineData(" 1")]
    [InlineData("1.0")]
    [InlineData("1e3")]
    [InlineData("١٢")]
    [InlineData("1000000000000000000")]
    [InlineData("99999999999999999999")]
    public void AnythingButACanonicalPositiveNumberIsRejected(string text)
    {
        Assert.False(UserNo.TryParse(text, out _));
        Assert.False(BookNo.TryParse(text, out _));
    }

    [Fact]
    public void ZeroOrNegativeNumbersCannotBeConstructed()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new UserNo(0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new BookNo(-3));
    }
}
