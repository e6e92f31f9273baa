using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

[Trait("Category", "Fast")]
public sealed class KoboOptionsTests
{
    [Theory]
    [InlineData("", "")]
    [InlineData("https://books.example.org", "https://files.example.org/ebooks/")]
    [InlineData("http://127.0.0.1:5080/sync/", "")]
    public void AbsoluteHttpUrlsOrNothingAreAccepted(string publicBase, string content)
    {
        var result = new KoboOptionsValidator().Validate(null, new KoboOptions { PublicBaseUrl = publicBase, ContentBaseUrl = content });

        Assert.True(result.Succeeded);
    }

    [Theory]
    [InlineData("books.example.org", "Kobo:PublicBaseUrl")]
    [InlineData("ftp://books.example.org", "Kobo:PublicBaseUrl")]
    [InlineData("https://books.example.org/?x=1", "Kobo:PublicBaseUrl")]
    public void ABadPublicBaseUrlFailsTheStartNamingTheKey(string value, string key)
    {
        var result = new KoboOptionsValidator().Validate(null, new KoboOptions { PublicBaseUrl = value });

        Assert.True(result.Failed);
        Assert.Contains(key, result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void ABadContentBaseUrlFailsTheStartNamingTheKey()
    {
        var result = new KoboOptionsValidator().Validate(null, new KoboOptions { ContentBaseUrl = "/relative/path" });

        Assert.True(result.Failed);
        Assert.Contains("Kobo:ContentBaseUrl", result.FailureMessage, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("LinkLookupConcurrency", 0)]
    [InlineData("LinkLookupQueue", -1)]
    [InlineData("LinkLookupTimeoutMs", 0)]
    [InlineData("RefusedSecretsPerAddressBurst", 0)]
    [InlineData("RefusedSecretsPerAddressPerMinute", 0)]
    public void ALinkLookupLimitOutOfRangeFailsTheStartNamingTheKey(string key, int value)
    {
        var options = new KoboOptions();
        typeof(KoboOptions).GetProperty(key)!.SetValue(options, value);

        var result = new KoboOptionsValidator().Validate(null, options);

        Assert.True(result.Failed);
        Assert.Contains("Kobo:" + key, result.FailureMessage, StringComparison.Ordinal);
    }
}
