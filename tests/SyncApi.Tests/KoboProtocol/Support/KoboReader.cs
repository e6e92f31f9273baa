using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

/// <summary>
/// A Kobo e-reader linked to the service: every call goes to its <c>api_endpoint</c>
/// (<c>/kobo/{secret}</c>), carrying what a device carries (its sync token in <c>x-kobo-synctoken</c>).
/// </summary>
public sealed class KoboReader(HttpClient client, string apiEndpoint) : IDisposable
{
    public string ApiEndpoint { get; } = apiEndpoint;

    public string Root { get; } = KoboLinks.RootOf(apiEndpoint);

    public HttpClient Client => client;

    public async Task<HttpResponseMessage> SendAsync(HttpMethod method, string path, HttpContent? content = null, string? syncToken = null)
    {
        using var request = new HttpRequestMessage(method, new Uri(Root + path, UriKind.Relative)) { Content = content };
        if (syncToken is not null)
        {
            request.Headers.TryAddWithoutValidation("x-kobo-synctoken", syncToken);
        }

        return await client.SendAsync(request, TestTimeout.Token);
    }

    /// <summary>A call that must answer <paramref name="expect"/>; its JSON body (null when empty).</summary>
    public async Task<JsonElement?> JsonAsync(HttpMethod method, string path, int expect = 200, HttpContent? content = null)
    {
        using var response = await SendAsync(method, path, content);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True((int)response.StatusCode == expect, $"{method} {path}: expected {expect}, got {(int)response.StatusCode}: {body}");
        return body.Length == 0 ? null : JsonDocument.Parse(body).RootElement.Clone();
    }

    /// <summary>One page of library sync: its items, the token it answered, and whether it said to continue.</summary>
    public async Task<(JsonElement[] Items, string Token, bool Continue)> SyncPageAsync(string? syncToken)
    {
        using var response = await SendAsync(HttpMethod.Get, "/v1/library/sync", syncToken: syncToken);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"library sync: {(int)response.StatusCode} {body}");
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("utf-8", response.Content.Headers.ContentType?.CharSet);
        var token = Assert.Single(response.Headers.GetValues("x-kobo-synctoken"));
        var more = response.Headers.TryGetValues("x-kobo-sync", out var sync) && Assert.Single(sync) == "continue";
        return ([.. JsonDocument.Parse(body).RootElement.EnumerateArray().Select(e => e.Clone())], token, more);
    }

    /// <summary>Syncs as a device does: page after page while the service says continue.</summary>
    public async Task<(List<JsonElement> Items, string Token, int Pages)> SyncAsync(string? syncToken)
    {
        var items = new List<JsonElement>();
        var token = syncToken;
        var pages = 0;
        while (true)
        {
            var page = await SyncPageAsync(token);
            pages++;
            items.AddRange(page.Items);
            token = page.Token;
            if (!page.Continue)
            {
                return (items, token, pages);
            }

            Assert.True(pages < 1000, "the sync never ended");
        }
    }

    public void Dispose() => client.Dispose();
}
