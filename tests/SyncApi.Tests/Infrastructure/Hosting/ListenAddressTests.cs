using Kobo.Sync.SyncApi.Infrastructure.Hosting;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Hosting;

[Trait("Category", "Fast")]
public sealed class ListenAddressTests
{
    [Theory]
    [InlineData("http://127.0.0.1:5080", "127.0.0.1", 5080)]
    [InlineData("http://0.0.0.0:5081", "0.0.0.0", 5081)]
    [InlineData("http://*:5080", "0.0.0.0", 5080)]
    [InlineData("http://[::]:5080", "::", 5080)]
    [InlineData("http://localhost:5080", "localhost", 5080)]
    [InlineData("http://127.0.0.1:80", "127.0.0.1", 80)]
    [InlineData("http://127.0.0.1", "127.0.0.1", 80)]
    public void PlainHttpAddressesParse(string url, string host, int port)
    {
        Assert.True(ListenAddress.TryParse(url, out var address, out var error), error);
        Assert.Equal(new ListenAddress(host, port), address);
    }

    [Theory]
    [InlineData("", "absolute URL")]
    [InlineData("127.0.0.1:5080", "absolute URL")]
    [InlineData("https://127.0.0.1:5080", "must use http://")]
    [InlineData("http://127.0.0.1:5080/v1", "scheme, host and port only")]
    [InlineData("http://127.0.0.1:5080/?x=1", "scheme, host and port only")]
    [InlineData("http://sync.example:5080", "IP address or localhost")]
    public void AnythingElseIsRejectedWithAReason(string url, string reason)
    {
        Assert.False(ListenAddress.TryParse(url, out _, out var error));
        Assert.Contains(reason, error, StringComparison.Ordinal);
    }
}
