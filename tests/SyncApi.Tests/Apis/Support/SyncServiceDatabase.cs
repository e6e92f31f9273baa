using System.Net.Http.Json;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Apis.Support;

/// <summary>
/// A class fixture for sync tests, which write: a migrated database of its own holding users 1..50 and
/// books 1..20 (no demo seed), and the whole service in process on it.
/// </summary>
public sealed class SyncServiceDatabase : InProcessServiceDatabase
{
    protected override string SeedSql => """
        INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 50) n;
        INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n;
        """;

    /// <summary>A REST client speaking as <paramref name="device"/> of <paramref name="user"/>.</summary>
    public HttpClient Device(long user, string device = "test-device") =>
        Factory.CreateClient().WithToken(TestTokens.For(user, device));

    /// <summary>The stored Kobo location of the user's highlight <paramref name="key"/> in book 7 (null when none).</summary>
    public async Task<string?> LocationAsync(long user, string key, long book = 7)
    {
        await using var command = DataSource.CreateCommand("SELECT location FROM highlights WHERE id = $1");
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = $"highlights/users{user}-ebooks/{book}/{key}" });
        return await command.ExecuteScalarAsync(TestTimeout.Token) as string;
    }

    /// <summary>The stored rows of a user's highlights, tombstones included, as comparable text keyed by id.</summary>
    public async Task<Dictionary<string, string>> StoredAsync(long user)
    {
        var rows = new Dictionary<string, string>(StringComparer.Ordinal);
        await using var command = DataSource.CreateCommand("""
            SELECT id, concat_ws('|', text, start, length, color, note, version, deleted_at IS NOT NULL)
            FROM highlights WHERE user_no = $1
            """);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            rows[reader.GetString(0)] = reader.GetString(1);
        }

        return rows;
    }
}

/// <summary>The REST calls of device sync, for tests.</summary>
public static class SyncCalls
{
    public static object Upsert(string key, string text, DateTimeOffset at, long book = 7, string color = "yellow", string? note = null, string? baseVersion = null) =>
        new { op = "upsert", bookNo = book.ToString(System.Globalization.CultureInfo.InvariantCulture), key, baseVersion, text, start = 10, length = 42, color, note, modifiedAt = at };

    public static object Delete(string key, DateTimeOffset at, long book = 7, string? baseVersion = null) =>
        new { op = "delete", bookNo = book.ToString(System.Globalization.CultureInfo.InvariantCulture), key, baseVersion, modifiedAt = at };

    public static async Task<HttpResponseMessage> PushRawAsync(this HttpClient client, long user, params object[] changes) =>
        await client.PostAsJsonAsync(new Uri($"/v1/users/{user}/changes", UriKind.Relative), new { changes }, TestTimeout.Token);

    /// <summary>Pushes and returns the results array; the push must answer 200.</summary>
    public static async Task<JsonElement[]> PushAsync(this HttpClient client, long user, params object[] changes)
    {
        using var response = await client.PushRawAsync(user, changes);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.IsSuccessStatusCode, $"push: {(int)response.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.GetProperty("results").EnumerateArray().Select(e => e.Clone()).ToArray();
    }

    public static async Task<JsonElement> PullPageAsync(this HttpClient client, long user, string? since, int? pageSize = null, int expect = 200)
    {
        var query = new List<string>();
        if (since is not null)
        {
            query.Add("since=" + Uri.EscapeDataString(since));
        }

        if (pageSize is not null)
        {
            query.Add("pageSize=" + pageSize);
        }

        var path = $"/v1/users/{user}/changes" + (query.Count > 0 ? "?" + string.Join('&', query) : string.Empty);
        return await client.GetJsonAsync(path, expect);
    }

    /// <summary>Pulls until hasMore is false; returns every change and the last token.</summary>
    public static async Task<(List<JsonElement> Changes, string Token)> PullAllAsync(this HttpClient client, long user, string? since = null, int? pageSize = null)
    {
        var changes = new List<JsonElement>();
        var token = since;
        while (true)
        {
            var page = await client.PullPageAsync(user, token, pageSize);
            changes.AddRange(page.GetProperty("changes").EnumerateArray());
            token = page.GetProperty("syncToken").GetString()!;
            if (!page.GetProperty("hasMore").GetBoolean())
            {
                return (changes, token);
            }
        }
    }

    public static string Str(this JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString()! : string.Empty;
}
