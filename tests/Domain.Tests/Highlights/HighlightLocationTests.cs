using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.Domain.Tests.Highlights;

public sealed class HighlightLocationTests
{
    [Fact]
    public void NoLocationAndAJsonObjectUpToTheLimitCanBeStored()
    {
        Assert.Null(HighlightLocation.Problem(null));
        Assert.Null(HighlightLocation.Problem("{\"span\":{}}"));
        Assert.Null(HighlightLocation.Problem(new string('x', HighlightLocation.MaxLength)));
    }

    [Theory]
    [InlineData("")]
    [InlineData("a\0b")]
    public void EmptyOrUnstorableTextIsRefused(string location)
    {
        Assert.NotNull(HighlightLocation.Problem(location));
    }

    [Fact]
    public void HalfASurrogatePairIsRefused()
    {
        // Built at run time: an attribute argument cannot carry a lone surrogate.
        Assert.NotNull(HighlightLocation.Problem("{\"a\":\"" + (char)0xD800 + "\"}"));
    }

    [Fact]
    public void ALocationPastTheLimitIsRefused()
    {
        Assert.Contains("4096", HighlightLocation.Problem(new string('x', HighlightLocation.MaxLength + 1)), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{}", true)]
    [InlineData("{\"span\":{\"startChar\":0}}", true)]
    [InlineData("[]", false)]
    [InlineData("\"span\"", false)]
    [InlineData("{\"span\":", false)]
    [InlineData("{} {}", false)]
    public void OnlyASingleJsonObjectIsAKoboLocation(string location, bool isObject)
    {
        Assert.Equal(isObject, HighlightLocation.IsJsonObject(location));
    }
}
