using System.Buffers.Text;
using System.Net.Http.Json;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Apis.Support;

/// <summary>The REST calls of reading states, for tests.</summary>
public static class ReadingStateCalls
{
    public static object Position(double percent, DateTimeOffset at, string? location = null) => new { percent, location, modifiedAt = at };

    public static object Status(string value, DateTimeOffset at) => new { value, modifiedAt = at };

    public static object Statistics(int timeSpentMinutes, DateTimeOffset at) => new { timeSpentMinutes, modifiedAt = at };

    public static string StatePath(long user, long book) => $"/v1/users/{user}/books/{book}/reading-state";

    /// <summary>Gives the user the book, as a purchase does (the reading state of a book needs it owned).</summary>
    public static async Task OwnAsync(this PostgresDatabase db, long user, long book, bool owned = true) =>
        await new PostgresSyncStore(db.DataSource).SetOwnershipAsync(new UserNo(user), new BookNo(book), owned, TestTimeout.Token);

    public static async Task<JsonElement> GetStateAsync(this HttpClient client, long user, long book, int expect = 200) =>
        await client.GetJsonAsync(StatePath(user, book), expect);

    /// <summary>Puts <paramref name="body"/> (serialised as JSON) and returns the answer, which must have status <paramref name="expect"/>.</summary>
    public static async Task<JsonElement> PutStateAsync(this HttpClient client, long user, long book, object body, int expect = 200)
    {
        using var response = await client.PutAsJsonAsync(new Uri(StatePath(user, book), UriKind.Relative), body, TestTimeout.Token);
        return await AnswerAsync(response, expect);
    }

    /// <summary>Puts a body given as raw JSON text.</summary>
    public static async Task<JsonElement> PutRawStateAsync(this HttpClient client, long user, long book, string json, int expect)
    {
        using var content = new StringContent(json, Encoding.UTF8, "application/json");
        using var response = await client.PutAsync(new Uri(StatePath(user, book), UriKind.Relative), content, TestTimeout.Token);
        return await AnswerAsync(response, expect);
    }

    /// <summary>
    /// The same position as <paramref name="token"/> (a token of the current format, 4) in the format the
    /// service issued before reading states were pulled (2), signed as it was then.
    /// </summary>
    public static string AsFormatTwo(string token, long user)
    {
        var parts = Encoding.UTF8.GetString(Base64Url.DecodeFromChars(token.AsSpan(0, token.IndexOf('.', StringComparison.Ordinal)))).Split('|');
        Assert.Equal(("4", 10), (parts[0], parts.Length));
        var payload = Encoding.UTF8.GetBytes(string.Join('|', "2", parts[1], parts[2], parts[3], parts[4], parts[9]));
        byte[] message = [.. Encoding.UTF8.GetBytes($"sync-token\n{user}\n"), .. payload];
        var tag = HMACSHA256.HashData(Encoding.UTF8.GetBytes(TestTokens.CursorKey), message);
        return Base64Url.EncodeToString(payload) + "." + Base64Url.EncodeToString(tag.AsSpan(0, 16));
    }

    private static async Task<JsonElement> AnswerAsync(HttpResponseMessage response, int expect)
    {
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True((int)response.StatusCode == expect, $"PUT: expected {expect}, got {(int)response.StatusCode}: {body}");
        if (expect >= 400)
        {
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        }

        return JsonDocument.Parse(body).RootElement.Clone();
    }
}
