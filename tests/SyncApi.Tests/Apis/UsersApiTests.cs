using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>The three device reads over REST, against the demo data set on a real PostgreSQL.</summary>
public sealed class UsersApiTests : IClassFixture<DemoDatabase>, IDisposable
{
    private readonly DemoDatabase _database;
    private readonly SyncApiFactory _service;

    public UsersApiTests(DemoDatabase database)
    {
        _database = database;
        _service = new SyncApiFactory(TestTokens.ServiceSettings(database.ConnectionString));
    }

    public void Dispose() => _service.Dispose();

    private HttpClient As(long user) => _service.CreateClient().WithToken(TestTokens.For(user));

    [Fact]
    public async Task GettingAUserReturnsItsProfile()
    {
        var user = await As(12).GetJsonAsync("/v1/users/12", 200);
        Assert.Equal(12, user.GetProperty("userNo").GetInt64());
        Assert.False(string.IsNullOrEmpty(user.GetProperty("name").GetString()));
        Assert.True(user.TryGetProperty("createdAt", out _));
    }

    [Fact]
    public async Task AnUnknownUserIsNotFoundAsProblemDetailsWithATraceId()
    {
        var problem = await As(987_654_321).GetJsonAsync("/v1/users/987654321", 404);
        Assert.Equal(404, problem.GetProperty("status").GetInt32());
        Assert.Equal(32, problem.GetProperty("traceId").GetString()!.Length);
        await As(987_654_321).GetJsonAsync("/v1/users/987654321/highlights", 404);
        await As(987_654_321).GetJsonAsync("/v1/users/987654321/books/5/highlights", 404);
    }

    [Theory]
    [InlineData("/v1/users/12")]
    [InlineData("/v1/users/12/highlights")]
    [InlineData("/v1/users/12/books/5/highlights")]
    public async Task WritingToAReadIsMethodNotAllowedWithTheAllowedMethodNamed(string path)
    {
        using var response = await As(12).PostAsync(path, new StringContent("{}"), TestTimeout.Token);

        Assert.Equal(405, (int)response.StatusCode);
        Assert.Contains("GET", response.Content.Headers.Allow);
    }

    [Fact]
    public async Task TheFirstPageHoldsTenHighlightsInIdOrderByDefault()
    {
        var page = await As(_database.HeavyUser.Value).GetJsonAsync($"/v1/users/{_database.HeavyUser.Value}/highlights", 200);
        var items = page.GetProperty("items").EnumerateArray().ToList();
        Assert.Equal(10, items.Count);
        var ids = items.Select(i => i.GetProperty("id").GetString()!).ToList();
        Assert.Equal(ids.Order(StringComparer.Ordinal), ids);
        Assert.NotNull(page.GetProperty("nextCursor").GetString());
        foreach (var field in new[] { "bookNo", "text", "start", "length", "color", "note", "createdAt", "modifiedAt" })
        {
            Assert.True(items[0].TryGetProperty(field, out _), $"items carry '{field}'");
        }
    }

    [Fact]
    public async Task WalkingTheHeavyUsersCursorReturnsEveryHighlightOnceInIdOrder()
    {
        var heavy = _database.HeavyUser.Value;
        var ids = await As(heavy).WalkAsync($"/v1/users/{heavy}/highlights", 100);

        var expected = await _database.CountAsync("SELECT count(*) FROM highlights WHERE user_no = $1", heavy);
        Assert.True(expected >= 5_000, $"the heavy demo user holds {expected} highlights");
        Assert.Equal(expected, ids.Count);
        Assert.Equal(ids.Count, ids.Distinct(StringComparer.Ordinal).Count());
        Assert.Equal(ids.Order(StringComparer.Ordinal), ids);
    }

    [Fact]
    public async Task AUsersReadNeverReturnsTheHighlightsOfAUserWhoseNumberItPrefixes()
    {
        var ids = await As(12).WalkAsync("/v1/users/12/highlights", 100);
        Assert.NotEmpty(ids);
        Assert.All(ids, id => Assert.StartsWith("highlights/users12-", id, StringComparison.Ordinal));
        Assert.Equal(await _database.CountAsync("SELECT count(*) FROM highlights WHERE user_no = $1", 12L), ids.Count);

        var longer = await As(123).WalkAsync("/v1/users/123/highlights", 100);
        Assert.NotEmpty(longer);
        Assert.All(longer, id => Assert.StartsWith("highlights/users123-", id, StringComparison.Ordinal));
    }

    [Fact]
    public async Task ABooksReadNeverReturnsTheHighlightsOfABookWhoseNumberItPrefixes()
    {
        foreach (var book in new long[] { 5, 56 })
        {
            var ids = await As(12).WalkAsync($"/v1/users/12/books/{book}/highlights", 3);
            Assert.NotEmpty(ids);
            Assert.All(ids, id => Assert.StartsWith($"highlights/users12-ebooks/{book}/", id, StringComparison.Ordinal));
            var expected = await _database.CountAsync(
                "SELECT count(*) FROM highlights WHERE user_no = $1 AND book_no = $2", 12L, book);
            Assert.Equal(expected, ids.Count);
        }
    }

    [Fact]
    public async Task AnExistingUserWithoutHighlightsInABookGetsAnEmptyPage()
    {
        var page = await As(12).GetJsonAsync("/v1/users/12/books/999999999/highlights", 200);
        Assert.Empty(page.GetProperty("items").EnumerateArray());
        Assert.Equal(JsonValueKind.Null, page.GetProperty("nextCursor").ValueKind);
    }

    [Theory]
    [InlineData("/v1/users/abc", "userNo")]
    [InlineData("/v1/users/012", "userNo")]
    [InlineData("/v1/users/-12", "userNo")]
    [InlineData("/v1/users/0", "userNo")]
    [InlineData("/v1/users/1234567890123456789", "userNo")]
    [InlineData("/v1/users/12/books/x5/highlights", "bookNo")]
    [InlineData("/v1/users/12/books/0/highlights", "bookNo")]
    [InlineData("/v1/users/12/highlights?pageSize=0", "pageSize")]
    [InlineData("/v1/users/12/highlights?pageSize=101", "pageSize")]
    [InlineData("/v1/users/12/highlights?pageSize=ten", "pageSize")]
    [InlineData("/v1/users/12/highlights?pageSize=-1", "pageSize")]
    [InlineData("/v1/users/12/highlights?pageSize=99999999999", "pageSize")]
    [InlineData("/v1/users/12/highlights?cursor=not-a-cursor", "cursor")]
    [InlineData("/v1/users/12/highlights?cursor=AAAA.AAAAAAAAAAAAAAAAAAAAAA", "cursor")]
    [InlineData("/v1/users/12/books/5/highlights?cursor=%00%01.%FF", "cursor")]
    public async Task ABadValueIsABadRequestNamingTheField(string path, string field)
    {
        var problem = await As(12).GetJsonAsync(path, 400);
        Assert.True(problem.GetProperty("errors").TryGetProperty(field, out _), problem.ToString());
    }

    [Fact]
    public async Task ACursorOfAnotherBookIsRejected()
    {
        var page = await As(12).GetJsonAsync("/v1/users/12/books/5/highlights?pageSize=1", 200);
        var cursor = Uri.EscapeDataString(page.GetProperty("nextCursor").GetString()!);
        await As(12).GetJsonAsync($"/v1/users/12/books/56/highlights?cursor={cursor}", 400);
        await As(12).GetJsonAsync($"/v1/users/12/highlights?cursor={cursor}", 400);
    }

    [Fact]
    public async Task ACursorOfAnotherUserIsRejected()
    {
        var page = await As(12).GetJsonAsync("/v1/users/12/highlights?pageSize=1", 200);
        var cursor = Uri.EscapeDataString(page.GetProperty("nextCursor").GetString()!);
        await As(123).GetJsonAsync($"/v1/users/123/highlights?cursor={cursor}", 400);
    }

    [Fact]
    public async Task TheServiceDescribesItsApiInOpenApi()
    {
        var document = await _service.CreateClient().GetJsonAsync("/openapi/v1.json", 200);
        var paths = document.GetProperty("paths");
        Assert.True(paths.TryGetProperty("/v1/users/{userNo}", out _));
        Assert.True(paths.TryGetProperty("/v1/users/{userNo}/highlights", out _));
        Assert.True(paths.TryGetProperty("/v1/users/{userNo}/books/{bookNo}/highlights", out _));
    }

    [Fact]
    public async Task TheOpenApiDocumentDoesNotEchoTheCallersHostHeader()
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/openapi/v1.json");
        request.Headers.Host = "attacker.example";
        using var response = await _service.CreateClient().SendAsync(request, TestTimeout.Token);
        var document = await response.Content.ReadAsStringAsync(TestTimeout.Token);

        Assert.Equal(200, (int)response.StatusCode);
        Assert.Contains("/v1/users/{userNo}", document, StringComparison.Ordinal);
        Assert.DoesNotContain("attacker.example", document, StringComparison.Ordinal);
        Assert.DoesNotContain("\"servers\"", document, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheServiceIsReadyWhenItsDatabaseIs()
    {
        using var response = await _service.CreateClient().GetAsync(new Uri("/healthz/ready", UriKind.Relative), TestTimeout.Token);
        Assert.Equal(200, (int)response.StatusCode);
    }
}
