using System.Net;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>The calls a Kobo e-reader makes before and around its library sync, checked field by field.</summary>
public sealed class KoboSessionTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    [Fact]
    public async Task InitializationPointsTheDevicesCallsBackAtItsOwnRoot()
    {
        using var kobo = await db.LinkAsync(db.NewUser());

        using var response = await kobo.SendAsync(HttpMethod.Get, "/v1/initialization");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("e30=", Assert.Single(response.Headers.GetValues("x-kobo-apitoken")));
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        var resources = Assert.Single(body.RootElement.EnumerateObject(), p => p.Name == "Resources").Value;
        var root = kobo.ApiEndpoint;
        Assert.StartsWith("http://127.0.0.1:5080/kobo/", root, StringComparison.Ordinal); // the REST listener, in process
        Assert.Equal(root + "/v1/library/sync", resources.GetProperty("library_sync").GetString());
        Assert.Equal(root + "/v1/library/{Ids}/state", resources.GetProperty("reading_state").GetString());
        Assert.Equal(root + "/v1/library/{Ids}/metadata", resources.GetProperty("library_metadata").GetString());
        Assert.Equal(root + "/v1/auth/device", resources.GetProperty("device_auth").GetString());
        Assert.Equal(root + "/v1/user/profile", resources.GetProperty("user_profile").GetString());
        Assert.Equal(root, resources.GetProperty("reading_services_host").GetString());
        Assert.Equal(root, resources.GetProperty("image_host").GetString());
        Assert.Equal(root + "/{ImageId}/{Width}/{Height}/false/image.jpg", resources.GetProperty("image_url_template").GetString());
        Assert.Equal(root + "/{ImageId}/{Width}/{Height}/{Quality}/{IsGreyscale}/image.jpg", resources.GetProperty("image_url_quality_template").GetString());

        // Nothing the device calls goes to the store's API.
        Assert.DoesNotContain(resources.EnumerateObject(), p => p.Value.ToString().Contains("storeapi.kobo.com", StringComparison.Ordinal));
    }

    [Fact]
    public async Task DeviceAuthAnswersPlaceholderTokensAndEchoesTheUserKey()
    {
        using var kobo = await db.LinkAsync(db.NewUser());
        using var request = new StringContent(
            "{\"AffiliateName\":\"Kobo\",\"AppVersion\":\"4.38.21908\",\"ClientKey\":\"abc\",\"DeviceId\":\"d1\",\"PlatformId\":\"00000000-0000-0000-0000-000000000388\",\"SerialNumber\":\"N1\",\"UserKey\":\"user-key-1\"}",
            Encoding.UTF8, "application/json");

        var auth = (await kobo.JsonAsync(HttpMethod.Post, "/v1/auth/device", content: request))!.Value;

        Assert.Equal(["AccessToken", "RefreshToken", "TokenType", "TrackingId", "UserKey"], auth.EnumerateObject().Select(p => p.Name));
        Assert.NotEmpty(auth.GetProperty("AccessToken").GetString()!);
        Assert.NotEmpty(auth.GetProperty("RefreshToken").GetString()!);
        Assert.Equal("Bearer", auth.GetProperty("TokenType").GetString());
        Assert.True(Guid.TryParse(auth.GetProperty("TrackingId").GetString(), out _));
        Assert.Equal("user-key-1", auth.GetProperty("UserKey").GetString());
    }

    [Fact]
    public async Task AUserKeyNoTextCanCarryIsNotEchoed()
    {
        using var kobo = await db.LinkAsync(db.NewUser());
        using var request = new StringContent("{\"UserKey\":\"key\\ud800\"}", Encoding.UTF8, "application/json");

        var auth = (await kobo.JsonAsync(HttpMethod.Post, "/v1/auth/device", content: request))!.Value;

        Assert.Equal(string.Empty, auth.GetProperty("UserKey").GetString());
    }

    [Fact]
    public async Task AMalformedDeviceAuthBodyIsA400NotA500()
    {
        using var kobo = await db.LinkAsync(db.NewUser());

        var problem = (await kobo.JsonAsync(HttpMethod.Post, "/v1/auth/device", expect: 400,
            content: new StringContent("{\"UserKey\":", Encoding.UTF8, "application/json")))!.Value;

        Assert.Equal(400, problem.GetProperty("status").GetInt32());
    }

    [Fact]
    public async Task TheDevicesBearerTokenFromDeviceAuthDoesNotGetInTheWay()
    {
        using var kobo = await db.LinkAsync(db.NewUser());
        kobo.Client.DefaultRequestHeaders.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", "bm90LWEtand0");

        using var response = await kobo.SendAsync(HttpMethod.Get, "/v1/library/sync");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Theory]
    [InlineData("GET", "/v1/user/profile")]
    [InlineData("GET", "/v1/user/wishlist?PageSize=30&PageIndex=0")]
    [InlineData("GET", "/v1/user/recommendations")]
    [InlineData("GET", "/v1/deals")]
    [InlineData("GET", "/v1/products/featured/")]
    [InlineData("GET", "/v1/products/3f1c8c7e-2b5a-4d2e-9a51-7b1c0e6d9f10/nextread")]
    [InlineData("POST", "/v1/analytics/event")]
    [InlineData("GET", "/v1/no/such/call")]
    [InlineData("PUT", "/anything/at/all")]
    public async Task StoreCallsAndUnknownPathsAnswerAnEmptyObjectAsCalibreWebDoesWithoutItsProxy(string method, string path)
    {
        using var kobo = await db.LinkAsync(db.NewUser());

        var answer = (await kobo.JsonAsync(new HttpMethod(method), path, content: method == "GET" ? null : new StringContent("{}")))!.Value;

        Assert.Equal(JsonValueKind.Object, answer.ValueKind);
        Assert.Empty(answer.EnumerateObject());
    }

    [Fact]
    public async Task LoyaltyBenefitsAndTestsAnswerTheirMinimalShapes()
    {
        using var kobo = await db.LinkAsync(db.NewUser());
        using var tests = new HttpRequestMessage(HttpMethod.Post, new Uri(kobo.Root + "/v1/analytics/gettests", UriKind.Relative));
        tests.Headers.Add("X-Kobo-userkey", "key-7");

        var benefits = (await kobo.JsonAsync(HttpMethod.Get, "/v1/user/loyalty/benefits"))!.Value;
        using var testsResponse = await kobo.Client.SendAsync(tests, TestTimeout.Token);
        using var testsBody = JsonDocument.Parse(await testsResponse.Content.ReadAsStringAsync(TestTimeout.Token));

        Assert.Empty(benefits.GetProperty("Benefits").EnumerateObject());
        Assert.Equal("Success", testsBody.RootElement.GetProperty("Result").GetString());
        Assert.Equal("key-7", testsBody.RootElement.GetProperty("TestKey").GetString());
        Assert.Empty(testsBody.RootElement.GetProperty("Tests").EnumerateObject());
    }
}
