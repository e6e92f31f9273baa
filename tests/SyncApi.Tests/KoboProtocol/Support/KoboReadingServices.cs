using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

/// <summary>A Kobo e-reader's reading-services calls, as the device sends them to the host initialization advertises.</summary>
public sealed class KoboReadingServices(HttpClient client, string root)
{
    public HttpClient Client => client;

    /// <summary>A linked e-reader of <paramref name="user"/>, linked by its device <paramref name="device"/>.</summary>
    public static async Task<KoboReadingServices> LinkAsync(SyncServiceDatabase db, long user, string device = "kobo-libra")
    {
        using var phone = db.Device(user, device);
        var endpoint = await phone.LinkAsync(user);
        return new KoboReadingServices(db.Factory.CreateClient(), KoboLinks.RootOf(endpoint));
    }

    /// <summary>Grants <paramref name="book"/> to <paramref name="user"/> directly in the store.</summary>
    public static async Task GrantAsync(SyncServiceDatabase db, long user, long book)
    {
        await using var command = db.DataSource.CreateCommand(
            "INSERT INTO users_books (user_no, book_no, acquired_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    public Task<HttpResponseMessage> PatchAsync(string contentId, string json) =>
        SendAsync(HttpMethod.Patch, $"/api/v3/content/{contentId}/annotations", json);

    public Task<HttpResponseMessage> CheckAsync(string json) => SendAsync(HttpMethod.Post, "/api/v3/content/checkforchanges", json);

    public Task<HttpResponseMessage> GetAsync(string contentId, string? ifNoneMatch = null)
    {
        var request = new HttpRequestMessage(HttpMethod.Get, new Uri($"{root}/api/v3/content/{contentId}/annotations?limit=100", UriKind.Relative));
        if (ifNoneMatch is not null)
        {
            request.Headers.TryAddWithoutValidation("If-None-Match", ifNoneMatch);
        }

        return client.SendAsync(request, TestTimeout.Token);
    }

    /// <summary>A PATCH that must answer 200; its per-annotation results.</summary>
    public async Task<JsonElement[]> PatchOkAsync(string contentId, string json)
    {
        using var response = await PatchAsync(contentId, json);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"PATCH: {(int)response.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.GetProperty("results").EnumerateArray().Select(e => e.Clone()).ToArray();
    }

    /// <summary>A download that must answer 200: the raw body and the ETag.</summary>
    public async Task<(string Body, string ETag)> GetOkAsync(string contentId)
    {
        using var response = await GetAsync(contentId);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET: {(int)response.StatusCode} {body}");
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        return (body, response.Headers.ETag?.ToString() ?? string.Empty);
    }

    /// <summary>checkforchanges of one book with <paramref name="etag"/>: the content ids named.</summary>
    public async Task<string[]> CheckOkAsync(string contentId, string? etag)
    {
        using var response = await CheckAsync(JsonSerializer.Serialize(new[] { new { ContentId = contentId, etag } }));
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"checkforchanges: {(int)response.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.EnumerateArray().Select(e => e.GetString()!).ToArray();
    }

    private Task<HttpResponseMessage> SendAsync(HttpMethod method, string path, string json) =>
        client.SendAsync(
            new HttpRequestMessage(method, new Uri(root + path, UriKind.Relative))
            {
                Content = new StringContent(json, Encoding.UTF8, new MediaTypeHeaderValue("application/json")),
            },
            TestTimeout.Token);
}
