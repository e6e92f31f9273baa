using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>An HttpClient speaking as one device of one user, with helpers for the REST read endpoints.</summary>
public static class DeviceClient
{
    public static HttpClient WithToken(this HttpClient client, string? token)
    {
        client.DefaultRequestHeaders.Authorization = token is null ? null : new AuthenticationHeaderValue("Bearer", token);
        return client;
    }

    public static async Task<JsonElement> GetJsonAsync(this HttpClient client, string path, HttpStatusCodeExpectation expect)
    {
        using var response = await client.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True((int)response.StatusCode == expect.Status, $"GET {path}: expected {expect.Status}, got {(int)response.StatusCode}: {body}");
        if (expect.Status >= 400)
        {
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        }

        return JsonDocument.Parse(body).RootElement.Clone();
    }

    /// <summary>Every item id from walking <c>nextCursor</c> until null.</summary>
    public static async Task<List<string>> WalkAsync(this HttpClient client, string path, int pageSize)
    {
        var ids = new List<string>();
        string? cursor = null;
        do
        {
            var url = $"{path}?pageSize={pageSize}" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor));
            var page = await client.GetFromJsonAsync<JsonElement>(new Uri(url, UriKind.Relative), TestTimeout.Token);
            ids.AddRange(page.GetProperty("items").EnumerateArray().Select(i => i.GetProperty("id").GetString()!));
            cursor = page.GetProperty("nextCursor").GetString();
        }
        while (cursor is not null);

        return ids;
    }
}

/// <summary>The status a request must answer with.</summary>
public readonly record struct HttpStatusCodeExpectation(int Status)
{
    public static implicit operator HttpStatusCodeExpectation(int status) => new(status);
}
