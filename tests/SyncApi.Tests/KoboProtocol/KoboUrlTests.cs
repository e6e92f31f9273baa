using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>The URLs the Kobo front hands out: never steered by the request's Host header.</summary>
public sealed class KoboUrlTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    [Fact]
    public async Task AForgedHostHeaderSteersNoUrlTheServiceHandsOut()
    {
        using var host = new SyncGrpcTestHost(db.ConnectionString);
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        var user = db.NewUser();
        using var link = new HttpRequestMessage(HttpMethod.Post, new Uri($"/v1/users/{user}/kobo-links", UriKind.Relative));
        link.Headers.Authorization = new("Bearer", TestTokens.For(user, "phone"));
        link.Headers.Host = "evil.example";
        using var created = await rest.SendAsync(link, TestTimeout.Token);
        var endpoint = JsonDocument.Parse(await created.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement.GetProperty("apiEndpoint").GetString()!;
        using var init = new HttpRequestMessage(HttpMethod.Get, new Uri(KoboLinks.RootOf(endpoint) + "/v1/initialization", UriKind.Relative));
        init.Headers.Host = "evil.example:8443";
        using var resources = await rest.SendAsync(init, TestTimeout.Token);
        var body = await resources.Content.ReadAsStringAsync(TestTimeout.Token);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.StartsWith(host.RestAddress.ToString().TrimEnd('/') + "/kobo/", endpoint, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.OK, resources.StatusCode);
        Assert.DoesNotContain("evil.example", body, StringComparison.Ordinal);
        Assert.Contains(host.RestAddress.ToString().TrimEnd('/') + "/kobo/", body, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("192.0.2.10", 5080, "http://192.0.2.10:5080")]
    [InlineData("::ffff:192.0.2.10", 5080, "http://192.0.2.10:5080")]
    [InlineData("2001:db8::10", 8080, "http://[2001:db8::10]:8080")]
    public void WithoutAPublicBaseTheUrlsAreTheAddressTheConnectionReached(string local, int port, string expected)
    {
        var context = new DefaultHttpContext();
        context.Request.Scheme = "http";
        context.Request.Host = new HostString("evil.example");
        context.Connection.LocalIpAddress = IPAddress.Parse(local);
        context.Connection.LocalPort = port;

        Assert.Equal(expected, KoboUrls.Base(new KoboOptions(), context));
        Assert.Equal("https://books.example.org/sync", KoboUrls.Base(new KoboOptions { PublicBaseUrl = "https://books.example.org/sync/" }, context));
    }
}
