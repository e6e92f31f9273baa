using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.ReadingStateCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>What a reading state put refuses, and who may read and write a reading state: precise 4xx answers, nothing stored.</summary>
public sealed class ReadingStateLimitsTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private const string At = "\"2026-11-22T01:00:00Z\"";

    [Theory]
    [InlineData("{\"position\":{\"percent\":100.5,\"modifiedAt\":" + At + "}}", "position.percent")]
    [InlineData("{\"position\":{\"percent\":-1,\"modifiedAt\":" + At + "}}", "position.percent")]
    [InlineData("{\"position\":{\"location\":\"x\",\"modifiedAt\":" + At + "}}", "position.percent")]
    [InlineData("{\"position\":{\"percent\":1,\"location\":\"a\\u0000b\",\"modifiedAt\":" + At + "}}", "position.location")]
    [InlineData("{\"position\":{\"percent\":1,\"location\":\"half \\ud83d\",\"modifiedAt\":" + At + "}}", "position.location")]
    [InlineData("{\"position\":{\"percent\":1}}", "position.modifiedAt")]
    [InlineData("{\"position\":{\"percent\":1,\"modifiedAt\":\"2026-11-22T01:00:00\"}}", "position.modifiedAt")]
    [InlineData("{\"status\":{\"value\":\"Reading\",\"modifiedAt\":" + At + "}}", "status.value")]
    [InlineData("{\"status\":{\"value\":\"reading\",\"modifiedAt\":\"0000-01-01T00:00:00Z\"}}", "status.modifiedAt")]
    [InlineData("{\"statistics\":{\"timeSpentMinutes\":-5,\"modifiedAt\":" + At + "}}", "statistics.timeSpentMinutes")]
    [InlineData("{\"statistics\":{\"modifiedAt\":" + At + "}}", "statistics.timeSpentMinutes")]
    [InlineData("{}", "body")]
    [InlineData("{\"position\":null}", "body")]
    [InlineData("{\"statistics\":{\"timeSpentMinutes\":1.5,\"modifiedAt\":" + At + "}}", "body")]
    [InlineData("{\"position\":{\"percent\":\"NaN\",\"modifiedAt\":" + At + "}}", "position.percent")]
    [InlineData("{\"position\":{\"percent\":1e400,\"modifiedAt\":" + At + "}}", "position.percent")]
    [InlineData("[1,2]", "body")]
    public async Task AMalformedPutIs400NamingTheFieldAndStoresNothing(string json, string field)
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);

        var problem = await device.PutRawStateAsync(user, 7, json, expect: 400);

        Assert.True(problem.GetProperty("errors").TryGetProperty(field, out _), problem.GetRawText());
        Assert.Equal("{\"bookNo\":\"7\"}", (await device.GetStateAsync(user, 7)).GetRawText());
    }

    [Fact]
    public async Task ALocationOf2048CodeUnitsIsKeptAndOneMoreIs400()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);
        var at = DateTimeOffset.UtcNow.AddMinutes(-1);

        await device.PutStateAsync(user, 7, new { position = Position(1, at, new string('\u00e9', 2_048)) });
        var problem = await device.PutStateAsync(user, 7, new { position = Position(2, at.AddSeconds(1), new string('x', 2_049)) }, expect: 400);

        Assert.True(problem.GetProperty("errors").TryGetProperty("position.location", out _));
        Assert.Equal(2_048, (await device.GetStateAsync(user, 7)).GetProperty("position").Str("location").Length);
    }

    [Fact]
    public async Task ABookTheUserDoesNotOwnIs404NamingTheBookForGetAndPut()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var read = await device.GetStateAsync(user, 7, expect: 404);
        var write = await device.PutStateAsync(user, 7, new { status = Status("reading", DateTimeOffset.UtcNow) }, expect: 404);

        Assert.Contains("does not own book 7", read.Str("detail"), StringComparison.Ordinal);
        Assert.Contains("does not own book 7", write.Str("detail"), StringComparison.Ordinal);
        await device.GetStateAsync(user, 999, expect: 404);
    }

    [Fact]
    public async Task ARemovedBookIs404AndItsStateIsNotWritten()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);
        await device.PutStateAsync(user, 7, new { position = Position(5, DateTimeOffset.UtcNow.AddMinutes(-2)) });
        await db.OwnAsync(user, 7, owned: false);

        await device.PutStateAsync(user, 7, new { position = Position(90, DateTimeOffset.UtcNow) }, expect: 404);

        await db.OwnAsync(user, 7);
        Assert.Equal("5", (await device.GetStateAsync(user, 7)).GetProperty("position").GetProperty("percent").GetRawText());
    }

    [Fact]
    public async Task AnotherUsersReadingStateIs403AndWithoutATokenIs401()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        await db.OwnAsync(other, 7);
        using var device = db.Device(user);
        using var anonymous = db.Factory.CreateClient();

        await device.GetStateAsync(other, 7, expect: 403);
        await device.PutStateAsync(other, 7, new { status = Status("reading", DateTimeOffset.UtcNow) }, expect: 403);
        using var response = await anonymous.GetAsync(new Uri(StatePath(other, 7), UriKind.Relative), TestTimeout.Token);
        Assert.Equal(401, (int)response.StatusCode);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("07")]
    [InlineData("x")]
    public async Task AMalformedBookNumberIs400(string book)
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        var problem = await device.GetJsonAsync($"/v1/users/{user}/books/{book}/reading-state", 400);
        Assert.True(problem.GetProperty("errors").TryGetProperty("bookNo", out _));
    }
}
