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

    // Built here: a test runner's serialised theory data would replace a lone surrogate with U+FFFD.
    [Theory]
    [InlineData("a", 0x0000, "b", "U+0000")]
    [InlineData("half ", 0xD83D, "", "U+D83D")]
    [InlineData("", 0xDE00, " half", "U+DE00")]
    [InlineData("\ud83d\ude00", 0xDE00, "", "U+DE00")]
    public void TextOrNoteTheStoreCannotKeepIsRejectedNamingTheCharacter(string before, int code, string after, string character)
    {
        var value = before + (char)code + after;

        var problems = HighlightRules.Check(value, 0, 1, HighlightColor.Pink, value);

        Assert.Equal(["note", "text"], problems.Keys.Order(StringComparer.Ordinal));
        Assert.All(problems.Values, p => Assert.Contains(character, p, StringComparison.Ordinal));
    }

    [Fact]
    public void EveryOtherCharacterIsKeptAsSent()
    {
        Assert.Empty(HighlightRules.Check("smile \ud83d\ude00\t\r\n\u0001\u007f\ufffe\uffff", 0, 1, HighlightColor.Pink, "\u0085"));
    }
}
