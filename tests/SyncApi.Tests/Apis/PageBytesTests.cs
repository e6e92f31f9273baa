using System.Text.Json;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// Pages bounded in bytes as well as in items, over REST: a user's largest highlights come in pages of
/// about 1 MiB (Paging:MaxPageBytes), never one of tens of megabytes, and paging still delivers each once.
/// </summary>
public sealed class PageBytesTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    /// <summary>The budget, one item past it (a page's first item may be that large), and the page's own fields.</summary>
    private const int MaxAnswerBytes = PageBudget.DefaultMaxBytes + LargeHighlights.ItemBytes + 4_096;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task HighlightPagesOfLargeHighlightsStayWithinTheBudgetAndWalkEveryHighlightOnce(bool oneBook)
    {
        var user = db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(db.DataSource, user, 240);
        var expected = oneBook ? seeded.Where(id => id.Contains("-ebooks/1/", StringComparison.Ordinal)).ToHashSet() : seeded;
        using var device = db.Device(user);
        var path = oneBook ? $"/v1/users/{user}/books/1/highlights" : $"/v1/users/{user}/highlights";

        var seen = new List<string>();
        var pages = 0;
        string? cursor = null;
        do
        {
            var (page, bytes) = await GetAsync(device, $"{path}?pageSize=100" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor)));
            pages++;
            Assert.InRange(bytes, 1, MaxAnswerBytes);
            var items = page.GetProperty("items").EnumerateArray().Select(h => h.GetProperty("id").GetString()!).ToArray();
            Assert.NotEmpty(items);
            seen.AddRange(items);
            cursor = page.TryGetProperty("nextCursor", out var next) && next.ValueKind == JsonValueKind.String ? next.GetString() : null;
        }
        while (cursor is not null && pages < 100);

        Assert.Equal(expected.Count, seen.Count);
        Assert.Equal(expected.Order(StringComparer.Ordinal), seen);
    }

    [Fact]
    public async Task APullOfAThousandLargeChangesStaysWithinTheBudgetAndDeliversEveryChangeOnce()
    {
        var user = db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(db.DataSource, user, 240);
        using var device = db.Device(user);

        var highlights = new List<string>();
        var books = new List<string>();
        var pages = 0;
        string? token = null;
        JsonElement page;
        do
        {
            var path = $"/v1/users/{user}/changes?pageSize=1000" + (token is null ? string.Empty : "&since=" + Uri.EscapeDataString(token));
            (page, var bytes) = await GetAsync(device, path);
            pages++;
            Assert.InRange(bytes, 1, MaxAnswerBytes);
            var changes = page.GetProperty("changes").EnumerateArray().ToArray();
            highlights.AddRange(changes.Where(c => c.Str("kind") == "highlight").Select(c => c.Str("id")));
            books.AddRange(changes.Where(c => c.Str("kind") == "entitlement").Select(c => c.Str("bookNo")));
            token = page.GetProperty("syncToken").GetString();
        }
        while (page.GetProperty("hasMore").GetBoolean() && pages < 100);

        Assert.Equal(seeded.Order(StringComparer.Ordinal), highlights.Order(StringComparer.Ordinal));
        Assert.Equal(Enumerable.Range(1, 20).Select(b => b.ToString(System.Globalization.CultureInfo.InvariantCulture)).Order(), books.Order());
        Assert.InRange(pages, 5, 8); // about 4.9 MB of highlights in pages of 1 MiB
        var (after, _) = await device.PullAllAsync(user, token);
        Assert.Empty(after);
    }

    [Fact]
    public async Task AHighlightLargerThanTheBudgetComesAloneAndPagingMovesOn()
    {
        var user = db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(db.DataSource, user, 6);
        using var service = db.ServiceWith(new() { ["Paging:MaxPageBytes"] = "16384" });
        using var device = service.CreateClient().WithToken(TestTokens.For(user));

        var listed = new List<string>();
        string? cursor = null;
        for (var i = 0; i < 20; i++)
        {
            var (page, _) = await GetAsync(device, $"/v1/users/{user}/highlights?pageSize=100" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor)));
            listed.Add(Assert.Single(page.GetProperty("items").EnumerateArray()).GetProperty("id").GetString()!);
            cursor = page.TryGetProperty("nextCursor", out var next) && next.ValueKind == JsonValueKind.String ? next.GetString() : null;
            if (cursor is null)
            {
                break;
            }
        }

        var pulled = new List<string>();
        string? token = null;
        for (var i = 0; i < 60; i++)
        {
            var page = await device.PullPageAsync(user, token, pageSize: 1000);
            var changes = page.GetProperty("changes").EnumerateArray().ToArray();
            Assert.NotEmpty(changes);
            var highlights = changes.Where(c => c.Str("kind") == "highlight").Select(c => c.Str("id")).ToArray();
            Assert.True(highlights.Length == 0 || changes.Length == 1, "a highlight over the budget comes alone");
            pulled.AddRange(highlights);
            token = page.GetProperty("syncToken").GetString();
            if (!page.GetProperty("hasMore").GetBoolean())
            {
                break;
            }
        }

        Assert.Equal(seeded.Order(StringComparer.Ordinal), listed);
        Assert.Equal(seeded.Order(StringComparer.Ordinal), pulled.Order(StringComparer.Ordinal));
    }

    private static async Task<(JsonElement Body, int Bytes)> GetAsync(HttpClient client, string path)
    {
        using var response = await client.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
        var body = await response.Content.ReadAsByteArrayAsync(TestTimeout.Token);
        Assert.True(response.IsSuccessStatusCode, $"GET {path}: {(int)response.StatusCode}");
        return (JsonDocument.Parse(body).RootElement.Clone(), body.Length);
    }
}
