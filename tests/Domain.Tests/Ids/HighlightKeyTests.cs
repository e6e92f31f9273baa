using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.Ids;

public sealed class HighlightKeyTests
{
    [Theory]
    [InlineData("a")]
    [InlineData("AZaz09_-")]
    [InlineData("0123456789012345678901234567890123456789012345678901234567890123")]
    public void KeysOfAllowedCharactersAndLengthParse(string text)
    {
        Assert.True(HighlightKey.TryParse(text, out var key));
        Assert.Equal(text, key.Value);
    }

    [Theory]
    [InlineData("")]
    [InlineData("01234567890123456789012345678901234567890123456789012345678901234")]
    [InlineData("a/b")]
    [InlineData("a b")]
    [InlineData("a.b")]
    [InlineData("é")]
    [InlineData("a\n")]
    public void KeysOutsideTheAlphabetOrTooLongAreRejected(string text)
    {
        Assert.False(HighlightKey.TryParse(text, out _));
        Assert.Throws<FormatException>(() => HighlightKey.Parse(text));
    }
}
