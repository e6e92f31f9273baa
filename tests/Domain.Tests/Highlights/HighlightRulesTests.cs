using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.Domain.Tests.Highlights;

public sealed class HighlightRulesTests
{
    [Fact]
    public void AWellFormedHighlightBreaksNoRule()
    {
        Assert.Empty(HighlightRules.Check("It was the best of times", 10, 24, HighlightColor.Yellow, note: null));
    }

    [Fact]
    public void EachBrokenRuleIsReportedAgainstItsField()
    {
        var problems = HighlightRules.Check(" ", -1, 0, "purple", new string('n', HighlightRules.MaxNoteLength + 1));

        Assert.Equal(["color", "length", "note", "start", "text"], problems.Keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void TextLongerThanTheLimitIsRejected()
    {
        var problems = HighlightRules.Check(new string('t', HighlightRules.MaxTextLength + 1), 0, 1, HighlightColor.Blue, null);

        Assert.Equal(["text"], problems.Keys);
    }
}
