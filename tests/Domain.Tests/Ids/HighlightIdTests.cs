using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.Ids;

public sealed class HighlightIdTests
{
    private static HighlightId Id(long user, long book, string key) =>
        new(new UserNo(user), new BookNo(book), HighlightKey.Parse(key));

    [Fact]
    public void IdEncodesOwnerBookAndDeviceKey()
    {
        Assert.Equal("highlights/users5101859-ebooks/56717/k_1-a", Id(5101859, 56717, "k_1-a").ToString());
    }

    [Fact]
    public void ParsingAFormattedIdGivesTheSameId()
    {
        var id = Id(42, 7, "Zz09_-");

        Assert.True(HighlightId.TryParse(id.ToString(), out var parsed));
        Assert.Equal(id, parsed);
    }

    [Fact]
    public void UserPrefixSelectsAllOfThatUsersHighlightsAndNoOtherUsers()
    {
        var prefix = HighlightId.UserPrefix(new UserNo(12));

        Assert.StartsWith(prefix, Id(12, 1, "a").ToString(), StringComparison.Ordinal);
        Assert.StartsWith(prefix, Id(12, 999, "b").ToString(), StringComparison.Ordinal);
        Assert.False(Id(123, 1, "a").ToString().StartsWith(prefix, StringComparison.Ordinal));
        Assert.False(Id(1, 21, "a").ToString().StartsWith(prefix, StringComparison.Ordinal));
    }

    [Fact]
    public void BookPrefixSelectsOneBookAndNeverABookWhoseNumberStartsTheSame()
    {
        var prefix = HighlightId.BookPrefix(new UserNo(12), new BookNo(5));

        Assert.StartsWith(prefix, Id(12, 5, "a").ToString(), StringComparison.Ordinal);
        Assert.False(Id(12, 56, "a").ToString().StartsWith(prefix, StringComparison.Ordinal));
        Assert.False(Id(123, 5, "a").ToString().StartsWith(prefix, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("")]
    [InlineData("highlights/users12-ebooks/5/")]
    [InlineData("highlights/users12-ebooks/5")]
    [InlineData("highlights/users012-ebooks/5/a")]
    [InlineData("highlights/users12-ebooks/05/a")]
    [InlineData("highlights/users0-ebooks/5/a")]
    [InlineData("highlights/users12ebooks/5/a")]
    [InlineData("highlights/users12-books/5/a")]
    [InlineData("highlights/users12-ebooks/5/a/b")]
    [InlineData("highlights/users12-ebooks/5/a b")]
    [InlineData("Highlights/users12-ebooks/5/a")]
    [InlineData("highlights/users-12-ebooks/5/a")]
    public void MalformedIdsDoNotParse(string text)
    {
        Assert.False(HighlightId.TryParse(text, out _));
    }
}
