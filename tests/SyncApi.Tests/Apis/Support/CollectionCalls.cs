using System.Globalization;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Apis.Support;

/// <summary>The REST calls of collections, for tests.</summary>
public static class CollectionCalls
{
    public static object Upsert(Guid id, string name, DateTimeOffset at) => new { op = "upsert", collectionId = id, name, modifiedAt = at };

    public static object DeleteCollection(Guid id, DateTimeOffset at) => new { op = "delete", collectionId = id, modifiedAt = at };

    public static object AddBooks(Guid id, DateTimeOffset at, params long[] books) =>
        new { op = "addBooks", collectionId = id, bookNos = books.Select(b => b.ToString(CultureInfo.InvariantCulture)).ToArray(), modifiedAt = at };

    public static object RemoveBooks(Guid id, DateTimeOffset at, params long[] books) =>
        new { op = "removeBooks", collectionId = id, bookNos = books.Select(b => b.ToString(CultureInfo.InvariantCulture)).ToArray(), modifiedAt = at };

    /// <summary>Pushes operations; returns the whole answer, which must have status <paramref name="expect"/>.</summary>
    public static async Task<JsonElement> PushCollectionsAsync(this HttpClient client, long user, object[] changes, int expect = 200)
    {
        using var response = await client.PostAsJsonAsync(new Uri($"/v1/users/{user}/collections/changes", UriKind.Relative), new { changes }, TestTimeout.Token);
        return await AnswerAsync(response, expect);
    }

    public static async Task<JsonElement> PushRawCollectionsAsync(this HttpClient client, long user, string json, int expect)
    {
        using var content = new StringContent(json, Encoding.UTF8, "application/json");
        using var response = await client.PostAsync(new Uri($"/v1/users/{user}/collections/changes", UriKind.Relative), content, TestTimeout.Token);
        return await AnswerAsync(response, expect);
    }

    /// <summary>The results' statuses, in order.</summary>
    public static string[] Statuses(this JsonElement push) =>
        [.. push.GetProperty("results").EnumerateArray().Select(r => r.GetProperty("status").GetString()!)];

    public static async Task<JsonElement> GetCollectionAsync(this HttpClient client, long user, string id, int expect = 200) =>
        await client.GetJsonAsync($"/v1/users/{user}/collections/{id}", expect);

    /// <summary>Every live collection of the user, page after page.</summary>
    public static async Task<List<JsonElement>> ListCollectionsAsync(this HttpClient client, long user, int pageSize = 100)
    {
        var all = new List<JsonElement>();
        string? cursor = null;
        do
        {
            var page = await client.GetJsonAsync(
                $"/v1/users/{user}/collections?pageSize={pageSize}" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor)), 200);
            all.AddRange(page.GetProperty("collections").EnumerateArray());
            cursor = page.GetProperty("nextCursor").GetString();
        }
        while (cursor is not null);
        return all;
    }

    /// <summary>A collection's books as numbers.</summary>
    public static long[] Books(this JsonElement collection) =>
        [.. collection.GetProperty("books").EnumerateArray().Select(b => long.Parse(b.GetString()!, CultureInfo.InvariantCulture))];

    private static async Task<JsonElement> AnswerAsync(HttpResponseMessage response, int expect)
    {
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True((int)response.StatusCode == expect, $"expected {expect}, got {(int)response.StatusCode}: {body}");
        if (expect >= 400)
        {
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        }

        return JsonDocument.Parse(body).RootElement.Clone();
    }
}
