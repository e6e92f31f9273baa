using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.ReadingStateCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>GET and PUT /v1/users/{userNo}/books/{bookNo}/reading-state on a real PostgreSQL, and reading states in the delta pull.</summary>
public sealed class ReadingStateApiTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-3);

    // A Kobo bookmark's Location object, as the Kobo front stores it: it must come back exactly.
    private const string KoboLocation = "{\"Value\":\"kobo.12.3\",\"Type\":\"KoboSpan\",\"Source\":\"OEBPS/ch03.xhtml\"} \u00e9\u4e2d\ud83d\udcd6 \\ \t";

    private static string Percent(JsonElement state) => state.GetProperty("position").GetProperty("percent").GetRawText();

    [Fact]
    public async Task APutThenAGetReturnsEveryGroupAndTheLocationExactlyAsSent()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);

        var answer = await device.PutStateAsync(user, 7, new
        {
            position = Position(42.5, T0, KoboLocation),
            status = Status("reading", T0.AddMinutes(1)),
            statistics = Statistics(95, T0.AddMinutes(2)),
        });
        var state = await device.GetStateAsync(user, 7);

        Assert.Equal(
            ("applied", "applied", "applied"),
            (answer.GetProperty("results").Str("position"), answer.GetProperty("results").Str("status"), answer.GetProperty("results").Str("statistics")));
        Assert.Equal(answer.GetProperty("readingState").GetRawText(), state.GetRawText());
        Assert.Equal("7", state.Str("bookNo"));
        Assert.Equal("42.5", Percent(state));
        Assert.Equal(KoboLocation, state.GetProperty("position").Str("location"));
        Assert.Equal(T0.AddMinutes(1).ToUnixTimeMilliseconds(), state.GetProperty("status").GetProperty("modifiedAt").GetDateTimeOffset().ToUnixTimeMilliseconds());
        Assert.Equal(("reading", 95), (state.GetProperty("status").Str("value"), state.GetProperty("statistics").GetProperty("timeSpentMinutes").GetInt32()));
        Assert.Equal(T0.AddMinutes(2).ToUnixTimeMilliseconds(), state.GetProperty("modifiedAt").GetDateTimeOffset().ToUnixTimeMilliseconds());
    }

    [Fact]
    public async Task AnOwnedBookNoDeviceHasWrittenHasAStateWithoutGroups()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);

        var state = await device.GetStateAsync(user, 7);

        Assert.Equal("{\"bookNo\":\"7\"}", state.GetRawText());
    }

    [Fact]
    public async Task AStaleDevicesPutDoesNotMoveThePositionBackwardsAndItsAnswerCarriesTheNewerState()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var current = db.Device(user, "current");
        using var stale = db.Device(user, "stale");
        await current.PutStateAsync(user, 7, new { position = Position(80, T0.AddHours(2), "page-200") });

        // The stale device read to 20% an hour earlier and syncs only now.
        var answer = await stale.PutStateAsync(user, 7, new { position = Position(20, T0.AddHours(1), "page-50") });

        Assert.Equal("conflict", answer.GetProperty("results").Str("position"));
        Assert.Equal("80", Percent(answer.GetProperty("readingState")));
        Assert.Equal("page-200", answer.GetProperty("readingState").GetProperty("position").Str("location"));
        Assert.Equal("80", Percent(await current.GetStateAsync(user, 7)));
    }

    [Fact]
    public async Task PartialPutsEachChangeOnlyTheirGroupAndAnOlderGroupLosesAlone()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);
        await device.PutStateAsync(user, 7, new { position = Position(10, T0) });
        await device.PutStateAsync(user, 7, new { statistics = Statistics(30, T0.AddMinutes(5)) });
        await device.PutStateAsync(user, 7, new { status = Status("finished", T0.AddMinutes(9)) });

        // A put carrying a newer position and an older status: the position wins, the status loses.
        var answer = await device.PutStateAsync(user, 7, new { position = Position(55, T0.AddMinutes(10)), status = Status("reading", T0.AddMinutes(8)) });

        var results = answer.GetProperty("results");
        Assert.Equal(("applied", "conflict"), (results.Str("position"), results.Str("status")));
        Assert.False(results.TryGetProperty("statistics", out _));
        var state = await device.GetStateAsync(user, 7);
        Assert.Equal(("55", "finished", 30), (Percent(state), state.GetProperty("status").Str("value"), state.GetProperty("statistics").GetProperty("timeSpentMinutes").GetInt32()));
        Assert.False(state.GetProperty("position").TryGetProperty("location", out _));
    }

    [Fact]
    public async Task TheSamePutAgainIsUnchanged()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);
        var put = new { position = Position(33.3, T0, "x"), statistics = Statistics(3, T0) };
        await device.PutStateAsync(user, 7, put);

        var again = await device.PutStateAsync(user, 7, put);

        Assert.Equal(("unchanged", "unchanged"), (again.GetProperty("results").Str("position"), again.GetProperty("results").Str("statistics")));
    }

    [Fact]
    public async Task AReadingStateChangeIsPulledByTheOtherDevicesOnceAndASecondPullDoesNotRepeatIt()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var reader = db.Device(user, "reader");
        using var writer = db.Device(user, "writer");
        var (_, token) = await reader.PullAllAsync(user);

        await writer.PutStateAsync(user, 7, new { position = Position(64, T0, KoboLocation), status = Status("reading", T0) });
        var (changes, next) = await reader.PullAllAsync(user, token);
        var (again, _) = await reader.PullAllAsync(user, next);

        var change = Assert.Single(changes);
        Assert.Equal(("readingState", "7"), (change.Str("kind"), change.Str("bookNo")));
        var state = change.GetProperty("readingState");
        Assert.Equal(("64", KoboLocation, "reading"), (Percent(state), state.GetProperty("position").Str("location"), state.GetProperty("status").Str("value")));
        Assert.Equal(T0.ToUnixTimeMilliseconds(), change.GetProperty("modifiedAt").GetDateTimeOffset().ToUnixTimeMilliseconds());
        Assert.Empty(again);
    }

    [Fact]
    public async Task AFirstSyncDeliversTheLibraryThenTheReadingStatesAndHighlightsInPagesOfEveryKind()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        foreach (var book in new long[] { 1, 2, 3 })
        {
            await db.OwnAsync(user, book);
            await device.PutStateAsync(user, book, new { position = Position(book * 10, T0) });
        }

        await device.PushAsync(user, Upsert("h", "t", T0, book: 1));

        var (changes, _) = await device.PullAllAsync(user, pageSize: 2);

        Assert.Equal(
            ["entitlement", "readingState", "entitlement", "readingState", "entitlement", "readingState", "highlight"],
            changes.Select(c => c.Str("kind")));
        Assert.Equal(["1", "2", "3"], changes.Where(c => c.Str("kind") == "readingState").Select(c => c.Str("bookNo")));
    }

    [Fact]
    public async Task ATokenIssuedBeforeReadingStatesStillWorksAndDeliversTheReadingStatesOnly()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 7);
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("h", "t", T0));
        await device.PutStateAsync(user, 7, new { status = Status("ready", T0) });
        var (_, token) = await device.PullAllAsync(user);

        // The device last pulled with a build that issued format-2 tokens, which carry no reading state position.
        var (changes, next) = await device.PullAllAsync(user, AsFormatTwo(token, user));

        Assert.Equal(["readingState"], changes.Select(c => c.Str("kind")));
        Assert.Empty((await device.PullAllAsync(user, next)).Changes);
    }

    [Fact]
    public async Task TheOpenApiDocumentDescribesTheReadingStatePutFieldForField()
    {
        var document = await db.Factory.CreateClient().GetJsonAsync("/openapi/v1.json", 200);

        var operations = document.GetProperty("paths").GetProperty("/v1/users/{userNo}/books/{bookNo}/reading-state");
        Assert.True(operations.TryGetProperty("get", out _));
        Assert.True(operations.TryGetProperty("put", out _));
        var schemas = document.GetProperty("components").GetProperty("schemas");
        var position = schemas.GetProperty("ReadingPositionJson").GetProperty("properties");
        Assert.Contains("string", position.GetProperty("location").GetProperty("type").EnumerateArray().Select(t => t.GetString()));
        Assert.Equal("date-time", position.GetProperty("modifiedAt").GetProperty("format").GetString());
        var status = schemas.GetProperty("ReadingStatusJson").GetProperty("properties");
        Assert.Contains("string", status.GetProperty("value").GetProperty("type").EnumerateArray().Select(t => t.GetString()));
    }
}
