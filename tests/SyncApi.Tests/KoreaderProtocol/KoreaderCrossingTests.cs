using System.Diagnostics;
using System.Net;
using System.Text;
using System.Text.Json;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.ReadingStateCalls;
using static Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support.KoreaderServiceDatabase;

namespace Kobo.Sync.SyncApi.Tests.KoreaderProtocol;

/// <summary>
/// A position crossing between KOReader (its plugin's calls, main.lua getProgress/updateProgress), a Kobo
/// e-reader (the Kobo front's v1/library/{uuid}/state) and an app (REST and gRPC reading state), in both
/// directions, on one user's reading state; the conflict rule; live pull woken by a KOReader write.
/// </summary>
public sealed class KoreaderCrossingTests : IClassFixture<KoreaderServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private const string XPointer = "/body/DocFragment[7]/body/p[2]/text().0";
    private const string KoboLocation = """{"Value":"kobo.7.2","Type":"KoboSpan","Source":"OEBPS/ch7.xhtml"}""";
    private readonly KoreaderServiceDatabase _db;
    private readonly SyncGrpcTestHost _grpc;

    public KoreaderCrossingTests(KoreaderServiceDatabase db)
    {
        _db = db;
        // A database budget of 10 s, not 1 s: these tests prove what is stored, not how fast, on a box shared with other work.
        _grpc = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?> { ["Resilience:RequestBudgetMs"] = "10000" });
    }

    public void Dispose() => _grpc.Dispose();

    // Every call goes to the one instance on real listeners (REST and gRPC), so no second service shares the test server's connections.
    private HttpClient Rest(long? user = null, string device = "phone")
    {
        var client = new HttpClient { BaseAddress = _grpc.RestAddress };
        return user is { } owner ? client.WithToken(TestTokens.For(owner, device)) : client;
    }

    private async Task<KoreaderDevice> KoreaderAsync(long user)
    {
        var (username, password, _) = await KoreaderServiceDatabase.LoginAsync(Rest(user), user);
        return new KoreaderDevice(Rest(), Prefix, username, KoreaderDevice.KeyOf(password), "Kobo_spaBW", "A1B2C3D4E5F60718293A4B5C6D7E8F90");
    }

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static StringContent KoboPut(double percent, DateTimeOffset at) => new(
        JsonSerializer.Serialize(new
        {
            ReadingStates = new[]
            {
                new
                {
                    LastModified = at,
                    CurrentBookmark = new { ProgressPercent = percent, Location = JsonDocument.Parse(KoboLocation).RootElement, LastModified = at },
                },
            },
        }),
        Encoding.UTF8,
        "application/json");

    private static async Task<JsonElement> KoboBookmarkAsync(KoboReader kobo, long book) =>
        Assert.Single((await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(book)}/state"))!.Value.EnumerateArray()).GetProperty("CurrentBookmark");

    private Task<ReadingState> GrpcStateAsync(long user, long book) =>
        _grpc.Client.UnaryAsync(
            Service, "GetReadingState", new GetReadingStateRequest { UserNo = user, BookNo = book }, ReadingState.Parser,
            metadata: SyncGrpcTestHost.As(user), cancellationToken: TestTimeout.Token);

    private Task<PutReadingStateResponse> GrpcPutAsync(long user, long book, double percent, DateTimeOffset at) =>
        _grpc.Client.UnaryAsync(
            Service, "PutReadingState",
            new PutReadingStateRequest { UserNo = user, BookNo = book, Position = new ReadingPosition { Percent = percent, ModifiedAt = Timestamp.FromDateTimeOffset(at) } },
            PutReadingStateResponse.Parser, metadata: SyncGrpcTestHost.As(user), cancellationToken: TestTimeout.Token);

    // KOReader -> Kobo e-reader, app over REST, app over gRPC: updateProgress's percentage (0..1) is the percent.
    [Fact]
    public async Task APositionPushedByKoreaderIsReadByAKoboEReaderAndByAppsOverRestAndGrpc()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 1, 3);
        using var koreader = await KoreaderAsync(user);
        using var phone = Rest(user);
        using var kobo = new KoboReader(Rest(), await phone.LinkAsync(user));

        Assert.Equal(HttpStatusCode.OK, (await koreader.PushAsync(Content(2), XPointer, 0.375)).Status);

        var bookmark = await KoboBookmarkAsync(kobo, 2);
        var rest = await phone.GetStateAsync(user, 2);
        var grpc = await GrpcStateAsync(user, 2);
        Assert.Equal(37.5, bookmark.GetProperty("ProgressPercent").GetDouble());
        Assert.False(bookmark.TryGetProperty("Location", out _));
        Assert.Equal(37.5, rest.GetProperty("position").GetProperty("percent").GetDouble());
        Assert.Equal((37.5, false), (grpc.Position.Percent, grpc.Position.HasLocation));
    }

    // Kobo e-reader -> KOReader, then app (REST) -> KOReader, then app (gRPC) -> KOReader. getProgress reads
    // body.percentage and, for a recent plugin, progress_match: "none" means canFollowProgress is false
    // (KOSyncIdentifiers.lua), so it does not follow the empty progress string to the letter.
    [Fact]
    public async Task APositionSetByAKoboEReaderOrAnAppIsReadByKoreaderAsAPercentage()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 1, 3);
        using var koreader = await KoreaderAsync(user);
        using var phone = Rest(user);
        using var kobo = new KoboReader(Rest(), await phone.LinkAsync(user));
        (string, string)[] ids = [("content", Content(1)), ("structure", Structure(1))];
        await koreader.PushAsync(Content(1), XPointer, 0.1, ids);

        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(1)}/state", content: KoboPut(55, DateTimeOffset.UtcNow.AddSeconds(1)));
        var afterKobo = (await koreader.PullAsync(Content(1), ids)).Json;
        await phone.PutStateAsync(user, 1, new { position = Position(66, DateTimeOffset.UtcNow.AddSeconds(2), "app-location") });
        var afterRest = (await koreader.PullAsync(Content(1))).Json;
        await GrpcPutAsync(user, 1, 77, DateTimeOffset.UtcNow.AddSeconds(3));
        var afterGrpc = (await koreader.PullAsync(Content(1))).Json;

        Assert.Equal(0.55, afterKobo.GetProperty("percentage").GetDouble(), 9);
        Assert.Equal(string.Empty, afterKobo.GetProperty("progress").GetString());
        Assert.Equal("Kobo.Sync", afterKobo.GetProperty("device").GetString());
        Assert.False(afterKobo.TryGetProperty("device_id", out _));
        Assert.Equal(("content", "none"), (afterKobo.GetProperty("match").GetString(), afterKobo.GetProperty("progress_match").GetString()));
        Assert.Equal(0.66, afterRest.GetProperty("percentage").GetDouble(), 9);
        Assert.Equal(0.77, afterGrpc.GetProperty("percentage").GetDouble(), 9);
        Assert.True(afterGrpc.GetProperty("timestamp").GetInt64() >= afterKobo.GetProperty("timestamp").GetInt64());
    }

    // The conflict rule: a KOReader device that did not write the stored position never moves it backwards;
    // main.lua getProgress then finds the server ahead and offers "Sync to latest location".
    [Fact]
    public async Task AStaleKoreaderDeviceDoesNotMoveAPositionSetLaterElsewhereBackwards()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 1, 3);
        using var koreader = await KoreaderAsync(user);
        using var phone = Rest(user);
        await phone.PutStateAsync(user, 3, new { position = Position(80, DateTimeOffset.UtcNow.AddSeconds(-30), "app") });

        var stale = await koreader.PushAsync(Content(3), XPointer, 0.2);
        var kept = await phone.GetStateAsync(user, 3);
        var forward = await koreader.PushAsync(Content(3), XPointer, 0.9);
        var moved = await phone.GetStateAsync(user, 3);
        var ownBack = await koreader.PushAsync(Content(3), XPointer, 0.85);
        var back = await phone.GetStateAsync(user, 3);
        var otherBack = await koreader.With(deviceId: "another-koreader").PushAsync(Content(3), XPointer, 0.5);
        var last = await phone.GetStateAsync(user, 3);

        Assert.Equal(HttpStatusCode.OK, stale.Status);
        Assert.Equal(80, kept.GetProperty("position").GetProperty("percent").GetDouble());
        Assert.Equal(HttpStatusCode.OK, forward.Status);
        Assert.Equal(90, moved.GetProperty("position").GetProperty("percent").GetDouble(), 9);
        Assert.Equal(HttpStatusCode.OK, ownBack.Status);
        Assert.Equal(85, back.GetProperty("position").GetProperty("percent").GetDouble(), 9);
        Assert.Equal(HttpStatusCode.OK, otherBack.Status);
        Assert.Equal(85, last.GetProperty("position").GetProperty("percent").GetDouble(), 9);
    }

    // Live pull: an app waiting on its changes is woken by a KOReader write, long before its wait ends.
    [Fact]
    public async Task AKoreaderWriteWakesAnAppWaitingOnLivePull()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 1, 3);
        using var koreader = await KoreaderAsync(user);
        using var phone = Rest(user);
        var (_, token) = await phone.PullAllAsync(user);
        var watch = Stopwatch.StartNew();

        var waiting = phone.GetStringAsync(new Uri($"/v1/users/{user}/changes?since={Uri.EscapeDataString(token)}&wait=60", UriKind.Relative), TestTimeout.Token);
        Assert.Equal(HttpStatusCode.OK, (await koreader.PushAsync(Content(2), XPointer, 0.6)).Status);
        var page = JsonDocument.Parse(await waiting).RootElement;

        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(30), $"the wait ended after {watch.Elapsed}, not on the write");
        var change = Assert.Single(page.GetProperty("changes").EnumerateArray());
        Assert.Equal(("readingState", "2"), (change.Str("kind"), change.Str("bookNo")));
        Assert.Equal(60, change.GetProperty("readingState").GetProperty("position").GetProperty("percent").GetDouble(), 9);
    }
}
