using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>GET/PUT v1/library/{uuid}/state and ChangedReadingState: the native reading state in the Kobo shape.</summary>
public sealed class KoboReadingStateTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private const string Location = """{"Value":"kobo.12.3","Type":"KoboSpan","Source":"OEBPS/chapter3.xhtml"}""";

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static StringContent Put(double percent, string at, string status = "Reading", int minutes = 17, string location = Location) => new(
        JsonSerializer.Serialize(new
        {
            ReadingStates = new[]
            {
                new
                {
                    EntitlementId = "ignored",
                    LastModified = at,
                    PriorityTimestamp = at,
                    CurrentBookmark = new { ProgressPercent = percent, ContentSourceProgressPercent = 12, Location = JsonDocument.Parse(location).RootElement, LastModified = at },
                    Statistics = new { SpentReadingMinutes = minutes, RemainingTimeMinutes = 200, LastModified = at },
                    StatusInfo = new { Status = status, LastModified = at },
                },
            },
        }),
        Encoding.UTF8,
        "application/json");

    private static async Task<JsonElement> StateAsync(KoboReader kobo, long book) =>
        Assert.Single((await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(book)}/state"))!.Value.EnumerateArray());

    [Fact]
    public async Task APutStateIsReadBackFieldByField()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);

        var answer = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(2)}/state", content: Put(42.5, "2026-11-20T10:00:00.0000000Z")))!.Value;
        var state = await StateAsync(kobo, 2);

        Assert.Equal("Success", answer.GetProperty("RequestResult").GetString());
        var update = Assert.Single(answer.GetProperty("UpdateResults").EnumerateArray());
        Assert.Equal(Uuid(2), update.GetProperty("EntitlementId").GetString());
        Assert.All(["CurrentBookmarkResult", "StatisticsResult", "StatusInfoResult"],
            name => Assert.Equal("Success", update.GetProperty(name).GetProperty("Result").GetString()));

        Assert.Equal(Uuid(2), state.GetProperty("EntitlementId").GetString());
        Assert.Equal("2026-11-20T10:00:00Z", state.GetProperty("LastModified").GetString());
        var bookmark = state.GetProperty("CurrentBookmark");
        Assert.Equal(42.5, bookmark.GetProperty("ProgressPercent").GetDouble());
        Assert.Equal(Location, bookmark.GetProperty("Location").GetRawText());
        Assert.Equal("2026-11-20T10:00:00Z", bookmark.GetProperty("LastModified").GetString());
        Assert.Equal("Reading", state.GetProperty("StatusInfo").GetProperty("Status").GetString());
        Assert.Equal(17, state.GetProperty("Statistics").GetProperty("SpentReadingMinutes").GetInt32());
    }

    [Fact]
    public async Task AStaleDevicesPutDoesNotMoveThePositionBackwards()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);

        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(3)}/state", content: Put(60, "2026-11-20T12:00:00Z", minutes: 90));
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(3)}/state", content: Put(30, "2026-11-20T09:00:00Z", status: "ReadyToRead", minutes: 10));
        var state = await StateAsync(kobo, 3);

        Assert.Equal(60, state.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetDouble());
        Assert.Equal("Reading", state.GetProperty("StatusInfo").GetProperty("Status").GetString());
        Assert.Equal(90, state.GetProperty("Statistics").GetProperty("SpentReadingMinutes").GetInt32());
    }

    [Fact]
    public async Task TheStateIsTheNativeOneBothWays()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);
        var (_, caughtUp, _) = await kobo.SyncAsync(null);

        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(1)}/state", content: Put(25, "2026-11-21T08:00:00Z"));
        var native = await phone.GetJsonAsync($"/v1/users/{user}/books/1/reading-state", 200);
        using var nativePut = await phone.PutAsJsonAsync(
            new Uri($"/v1/users/{user}/books/2/reading-state", UriKind.Relative),
            new { position = new { percent = 77.0, modifiedAt = "2026-11-21T09:00:00Z" }, status = new { value = "finished", modifiedAt = "2026-11-21T09:00:00Z" } },
            TestTimeout.Token);
        var (items, _, _) = await kobo.SyncAsync(caughtUp);

        Assert.Equal(25, native.GetProperty("position").GetProperty("percent").GetDouble());
        Assert.Equal(Location, native.GetProperty("position").GetProperty("location").GetString());
        Assert.Equal("reading", native.GetProperty("status").GetProperty("value").GetString());
        Assert.True(nativePut.IsSuccessStatusCode, await nativePut.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.Equal(2, items.Count); // the Kobo's own put and the phone's, as ChangedReadingState
        var changed = items.Select(i => Assert.Single(i.EnumerateObject())).ToList();
        Assert.All(changed, c => Assert.Equal("ChangedReadingState", c.Name));
        var phones = changed.Select(c => c.Value.GetProperty("ReadingState")).Single(s => s.GetProperty("EntitlementId").GetString() == Uuid(2));
        Assert.Equal(77, phones.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetDouble());
        Assert.False(phones.GetProperty("CurrentBookmark").TryGetProperty("Location", out _));
        Assert.Equal("Finished", phones.GetProperty("StatusInfo").GetProperty("Status").GetString());
        Assert.False(phones.GetProperty("Statistics").TryGetProperty("SpentReadingMinutes", out _)); // never written: as an unread book's
    }

    [Fact]
    public async Task AnotherUsersBookIsRefusedAndAStoreBookIsAnEmptyObject()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        await db.OwnAsync(other, 5, 5);
        using var kobo = await db.LinkAsync(user);

        await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(5)}/state", expect: 404);
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(5)}/state", expect: 404, content: Put(10, "2026-11-21T08:00:00Z"));
        var store = (await kobo.JsonAsync(HttpMethod.Get, "/v1/library/3f1c8c7e-2b5a-4d2e-9a51-7b1c0e6d9f10/state"))!.Value;

        Assert.Empty(store.EnumerateObject());
        using var otherKobo = await db.LinkAsync(other);
        Assert.False((await StateAsync(otherKobo, 5)).GetProperty("CurrentBookmark").TryGetProperty("ProgressPercent", out _));
    }

    [Theory]
    [InlineData("{\"ReadingStates\":")]
    [InlineData("{}")]
    [InlineData("{\"ReadingStates\":[]}")]
    [InlineData("{\"ReadingStates\":[{\"CurrentBookmark\":{\"ProgressPercent\":101,\"LastModified\":\"2026-11-21T08:00:00Z\"}}]}")]
    [InlineData("{\"ReadingStates\":[{\"CurrentBookmark\":{\"ProgressPercent\":5,\"LastModified\":\"yesterday\"}}]}")]
    public async Task AMalformedPutIsA400AndStoresNothing(string body)
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 1);
        using var kobo = await db.LinkAsync(user);

        var problem = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(1)}/state", expect: 400, content: new StringContent(body, Encoding.UTF8, "application/json")))!.Value;

        Assert.Equal(400, problem.GetProperty("status").GetInt32());
        Assert.False((await StateAsync(kobo, 1)).GetProperty("CurrentBookmark").TryGetProperty("ProgressPercent", out _));
    }
}
