using System.Net;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>The methods the <c>/kobo/{secret}</c> front takes: a device's, and 405 for any other.</summary>
public sealed class KoboMethodTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    [Theory]
    [InlineData("TRACE")]
    [InlineData("OPTIONS")]
    [InlineData("PROPFIND")]
    [InlineData("BREW")]
    public async Task AMethodNoDeviceUsesIsAnswered405WithAllowAsProblemJson(string method)
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var live = KoboLinks.RootOf(await phone.LinkAsync(user));
        using var client = db.Factory.CreateClient();

        foreach (var path in new[] { live + "/v1/initialization", live + "/v1/no/such/call", "/kobo/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/v1/library/sync" })
        {
            using var request = new HttpRequestMessage(new HttpMethod(method), new Uri(path, UriKind.Relative));
            using var response = await client.SendAsync(request, TestTimeout.Token);

            Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
            Assert.Contains("GET", response.Content.Headers.Allow);
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        }
    }
}
