using System.Diagnostics;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>A device pushing one new highlight, as the fault tests send it, and what came back.</summary>
public static class DevicePushes
{
    /// <summary>Adds <paramref name="user"/> to the users table unless it is there: pushes for an unknown user are refused.</summary>
    public static async Task AddUserAsync(NpgsqlDataSource database, long user)
    {
        await using var insert = database.CreateCommand("INSERT INTO users (user_no, name, created_at) VALUES ($1, 'a reader', now()) ON CONFLICT DO NOTHING");
        insert.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await insert.ExecuteNonQueryAsync();
    }

    /// <summary>The id the service stores a pushed highlight under.</summary>
    public static string HighlightId(long user, string key) => $"highlights/users{user}-ebooks/7/{key}";

    /// <summary>
    /// POST /v1/users/{user}/changes with one upsert of a new highlight under <paramref name="key"/>.
    /// Acknowledged means a 200 whose result is <c>applied</c> (or <c>unchanged</c>, for a replay).
    /// </summary>
    public static async Task<Push> PushHighlightAsync(HttpClient rest, long user, string key, string device = "test-device")
    {
        var clock = Stopwatch.StartNew();
        using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{user}/changes")
        {
            Content = JsonContent.Create(new
            {
                changes = new[]
                {
                    new { op = "upsert", bookNo = "7", key, text = "marked while a database failed", start = 0, length = 30, color = "yellow", modifiedAt = DateTimeOffset.UtcNow },
                },
            }),
        };
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(user, device));
        try
        {
            using var response = await rest.SendAsync(request);
            var body = await response.Content.ReadAsStringAsync();
            var acknowledged = (int)response.StatusCode == 200
                && (body.Contains("\"applied\"", StringComparison.Ordinal) || body.Contains("\"unchanged\"", StringComparison.Ordinal));
            return new Push(key, (int)response.StatusCode, acknowledged, response.Headers.RetryAfter?.Delta, clock.Elapsed);
        }
        catch (HttpRequestException)
        {
            return new Push(key, 0, false, null, clock.Elapsed);
        }
    }

    public readonly record struct Push(string Key, int Status, bool Acknowledged, TimeSpan? RetryAfter, TimeSpan Elapsed);
}
