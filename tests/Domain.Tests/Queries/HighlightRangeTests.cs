using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.Domain.Tests.Queries;

public sealed class HighlightRangeTests
{
    private static string Id(long user, long book, string key) =>
        new HighlightId(new UserNo(user), new BookNo(book), HighlightKey.Parse(key)).ToString();

    [Fact]
    public void AUsersRangeHoldsAllItsHighlightsAndNoneOfAUserWhoseNumberItPrefixes()
    {
        var range = HighlightRange.ForUser(new UserNo(12));
        Assert.True(range.Contains(Id(12, 1, "a")));
        Assert.True(range.Contains(Id(12, 999_999, "zzz")));
        Assert.False(range.Contains(Id(123, 1, "a")));
        Assert.False(range.Contains(Id(1, 1, "a")));
        Assert.False(range.Contains(Id(13, 1, "a")));
    }

    [Fact]
    public void ABooksRangeHoldsNoneOfABookWhoseNumberItPrefixes()
    {
        var range = HighlightRange.ForBook(new UserNo(12), new BookNo(5));
        Assert.True(range.Contains(Id(12, 5, "a")));
        Assert.True(range.Contains(Id(12, 5, "ZZ-__")));
        Assert.False(range.Contains(Id(12, 56, "a")));
        Assert.False(range.Contains(Id(12, 4, "a")));
        Assert.False(range.Contains(Id(123, 5, "a")));
    }

    [Fact]
    public void ResumingAfterAnIdExcludesItAndEverythingBefore()
    {
        var range = HighlightRange.ForUser(new UserNo(12)).ResumeAfter(Id(12, 5, "b"));
        Assert.False(range.Contains(Id(12, 5, "a")));
        Assert.False(range.Contains(Id(12, 5, "b")));
        Assert.True(range.Contains(Id(12, 5, "c")));
    }
}
