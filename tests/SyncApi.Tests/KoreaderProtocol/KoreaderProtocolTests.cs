using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support.KoreaderServiceDatabase;

namespace Kobo.Sync.SyncApi.Tests.KoreaderProtocol;

/// <summary>
/// KOReader's progress sync as its plugin speaks it (koreader/koreader plugins/kosync.koplugin: KOSyncClient.lua,
/// api.json, KOSyncIdentifiers.lua, main.lua) and as the reference server answers it (koreader/koreader-sync-server
/// app/controllers/1/syncs_controller.lua, lib/identifiers.lua, config/errors.lua). Each test names the plugin code
/// whose reading of the answer it checks.
/// </summary>
public sealed class KoreaderProtocolTests(KoreaderServiceDatabase db) : IClassFixture<KoreaderServiceDatabase>
{
    private const string XPointer = "/body/DocFragment[12]/body/div/p[4]/text().17";

    // syncs_controller.lua healthcheck: 200 {"state":"OK"}, no login needed.
    [Fact]
    public async Task TheHealthCheckAnswersStateOkWithoutALogin()
    {
        using var device = new KoreaderDevice(db.Factory.CreateClient(), Prefix, "nobody", "nokey", "Kindle", "d");

        var answer = await device.SendAsync(HttpMethod.Get, "/healthcheck", null, auth: false);

        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Equal("""{"state":"OK"}""", answer.Text);
    }

    // KOSyncClient.lua register: `return res.status == 201, res.body`; main.lua doRegister shows `body.message` when
    // not 201; api.json register expected_status [201, 402]. The reference answers a closed registration with
    // error 2005 (routes.lua: create_user_disabled).
    [Fact]
    public async Task RegistrationIsRefusedAsTheReferenceServerRefusesItWhenClosed()
    {
        using var device = new KoreaderDevice(db.Factory.CreateClient(), Prefix, "x", "y", "Kindle", "d");

        var answer = await device.RegisterAsync("reader", KoreaderDevice.KeyOf("secret"));

        Assert.Equal(HttpStatusCode.PaymentRequired, answer.Status);
        Assert.Equal("application/json", answer.ContentType);
        Assert.Equal(2005, answer.Json.GetProperty("code").GetInt32());
        Assert.Equal("User registration is disabled.", answer.Json.GetProperty("message").GetString());
        Assert.Equal(0L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_credentials WHERE username = 'reader'"));
    }

    // KOSyncClient.lua authorize: `return res.status == 200, res.body`, with x-auth-user and x-auth-key (KOSyncAuth);
    // main.lua doLogin keeps username and userkey = md5(password) on success. Reference auth_user: {"authorized":"OK"}.
    [Fact]
    public async Task ALoginMadeByThePhoneAuthorizesWithTheMd5OfItsPassword()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        var answer = await koreader.AuthorizeAsync();

        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Equal("""{"authorized":"OK"}""", answer.Text);
    }

    // main.lua doLogin: a status other than 200 shows `body.message`; reference error 2001 is 401 "Unauthorized".
    [Fact]
    public async Task AWrongKeyAnUnknownNameAndNoHeadersAreAllRefusedWith401AndTheReferenceMessage()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        var answers = new[]
        {
            await koreader.With(key: KoreaderDevice.KeyOf("not the password")).AuthorizeAsync(),
            await koreader.With(username: "u0-nosuchone").AuthorizeAsync(),
            await koreader.With(key: koreader.Key.ToUpperInvariant()).PushAsync(Md5("doc"), XPointer, 0.5),
            await koreader.SendAsync(HttpMethod.Get, "/users/auth", null, auth: false),
        };

        Assert.All(answers, answer =>
        {
            Assert.Equal(HttpStatusCode.Unauthorized, answer.Status);
            Assert.Equal(2001, answer.Json.GetProperty("code").GetInt32());
            Assert.Equal("Unauthorized", answer.Json.GetProperty("message").GetString());
        });
        Assert.Equal(0L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_documents WHERE user_no = $1", user));
    }

    // The key sits in the device's settings file; it is stored only as a slow hash (docs/koreader.md).
    [Fact]
    public async Task TheKeyIsStoredOnlyAsAPbkdf2Hash()
    {
        var user = db.NewUser();
        var (username, password, server) = await db.LoginAsync(user);

        var stored = await db.ScalarAsync<string>("SELECT key_hash FROM koreader_credentials WHERE username = $1", username);

        Assert.StartsWith("pbkdf2-sha256$100000$", stored);
        Assert.DoesNotContain(password, stored!, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(KoreaderDevice.KeyOf(password), stored!, StringComparison.OrdinalIgnoreCase);
        Assert.EndsWith(Prefix, server);
    }

    // main.lua getProgress: `if not body.percentage` -> "No progress found for this document." The reference
    // answers an unknown document 200 with an empty object.
    [Fact]
    public async Task AnUnknownDocumentIsAnEmptyObject()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        var answer = await koreader.PullAsync(Md5("never pushed"));

        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Equal("{}", answer.Text);
    }

    // main.lua: opening a book pulls (onReaderReady -> _onResume -> getProgress), closing it pushes
    // (onCloseDocument -> updateProgress). getProgress reads body.percentage (number, Math.roundPercent),
    // body.progress (syncToProgress -> GotoXPointer), body.device and body.device_id (compared with its own to
    // say "Latest progress is coming from this device"), body.timestamp (compared with last_page_turn_timestamp).
    [Fact]
    public async Task TwoKoreaderDevicesSyncAnUnmappedDocumentInThePluginsOrder()
    {
        var user = db.NewUser();
        using var kindle = await db.KoreaderAsync(user, "Kindle", "kindle-1");
        using var phone = kindle.With(model: "Android", deviceId: "phone-1");
        var document = Md5("Some Book.epub");

        var opened = await kindle.PullAsync(document);
        var closed = await kindle.PushAsync(document, XPointer, 0.3215);
        var otherOpens = await phone.PullAsync(document);

        Assert.Equal("{}", opened.Text);
        Assert.Equal(HttpStatusCode.OK, closed.Status);
        Assert.Equal(["document", "timestamp"], closed.Json.EnumerateObject().Select(p => p.Name).Order());
        Assert.Equal(document, closed.Json.GetProperty("document").GetString());
        Assert.Equal(HttpStatusCode.OK, otherOpens.Status);
        var body = otherOpens.Json;
        Assert.Equal(JsonValueKind.Number, body.GetProperty("percentage").ValueKind);
        Assert.Equal(0.3215, body.GetProperty("percentage").GetDouble());
        Assert.Equal(XPointer, body.GetProperty("progress").GetString());
        Assert.Equal("Kindle", body.GetProperty("device").GetString());
        Assert.Equal("kindle-1", body.GetProperty("device_id").GetString());
        Assert.Equal(JsonValueKind.Number, body.GetProperty("timestamp").ValueKind);
        Assert.Equal(closed.Json.GetProperty("timestamp").GetInt64(), body.GetProperty("timestamp").GetInt64());
        Assert.InRange(body.GetProperty("timestamp").GetInt64(), DateTimeOffset.UtcNow.AddMinutes(-5).ToUnixTimeSeconds(), DateTimeOffset.UtcNow.AddMinutes(5).ToUnixTimeSeconds());
        Assert.Equal(document, body.GetProperty("document").GetString());
        Assert.False(body.TryGetProperty("progress_match", out _));
    }

    // A document that is the content digest of an owned book's file reads and writes that book's reading state;
    // KOReader gets back exactly what it sent (its own write) and the app sees the percent.
    [Fact]
    public async Task ADocumentThatIsAnOwnedBooksDigestWritesThatBooksReadingState()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 5);
        using var koreader = await db.KoreaderAsync(user);
        using var phone = db.Device(user);

        var pushed = await koreader.PushAsync(Content(3), XPointer, 0.4215);
        var pulled = await koreader.PullAsync(Content(3));
        var state = JsonDocument.Parse(await phone.GetStringAsync(new Uri($"/v1/users/{user}/books/3/reading-state", UriKind.Relative), TestTimeout.Token)).RootElement;

        Assert.Equal(HttpStatusCode.OK, pushed.Status);
        Assert.Equal(0.4215, pulled.Json.GetProperty("percentage").GetDouble());
        Assert.Equal(XPointer, pulled.Json.GetProperty("progress").GetString());
        Assert.Equal(Content(3), pulled.Json.GetProperty("document").GetString());
        Assert.Equal(42.15, state.GetProperty("position").GetProperty("percent").GetDouble(), 9);
        Assert.False(state.GetProperty("position").TryGetProperty("location", out var location) && location.ValueKind != JsonValueKind.Null);
        Assert.Equal(0L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_documents WHERE user_no = $1", user));
    }

    // A book the user does not own is not theirs to write: its digest is kept as a document of the user's own.
    [Fact]
    public async Task ADigestOfABookTheUserDoesNotOwnIsKeptAsTheirOwnDocument()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        await koreader.PushAsync(Content(4), XPointer, 0.5);

        Assert.Equal(1L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_documents WHERE user_no = $1", user));
        Assert.Equal(0L, await db.ScalarAsync<long>("SELECT count(*) FROM reading_states WHERE user_no = $1", user));
    }

    // KOSyncIdentifiers.lua build: identifiers strongest first (content, structure, filename); query: "type:value,...";
    // canFollowProgress(progress_match): only content and structure are followed to the letter, nil (a server that
    // matches no identifiers, or an older plugin) is. The reference reports `match` (how the record was found) and
    // `progress_match` (what the reader shares with the progress's writer).
    [Fact]
    public async Task ARepackedCopyFindsTheBookByStructureAndIsToldItMayFollowTheProgress()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 5);
        using var original = await db.KoreaderAsync(user, "Kindle", "kindle-1");
        using var repacked = original.With(model: "Android", deviceId: "phone-1");
        (string, string)[] originalIds = [("content", Content(2)), ("structure", Structure(2)), ("filename", Filename(2))];
        (string, string)[] repackedIds = [("content", Md5("recompressed")), ("structure", Structure(2)), ("filename", Md5("other name.epub"))];
        (string, string)[] renamedEditionIds = [("content", Md5("another edition")), ("filename", Filename(2))];

        var pushed = await original.PushAsync(Content(2), XPointer, 0.25, originalIds);
        var byStructure = await repacked.PullAsync(Md5("recompressed"), repackedIds);
        var byFilename = await repacked.PullAsync(Md5("another edition"), renamedEditionIds);

        Assert.Equal(["document", "match", "timestamp"], pushed.Json.EnumerateObject().Select(p => p.Name).Order());
        Assert.Equal("content", pushed.Json.GetProperty("match").GetString());
        Assert.Equal(("structure", "structure", Structure(2), XPointer), (
            byStructure.Json.GetProperty("match").GetString(), byStructure.Json.GetProperty("progress_match").GetString(),
            byStructure.Json.GetProperty("document").GetString(), byStructure.Json.GetProperty("progress").GetString()));
        Assert.Equal(("filename", "filename"), (byFilename.Json.GetProperty("match").GetString(), byFilename.Json.GetProperty("progress_match").GetString()));
        Assert.Equal(0.25, byFilename.Json.GetProperty("percentage").GetDouble());
    }

    // Older plugins send no identifiers and read no match fields: the answer is the reference's v1 shape.
    [Fact]
    public async Task AnOlderPluginsPullOfAMappedBookCarriesNoMatchFields()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 5);
        using var koreader = await db.KoreaderAsync(user);
        await koreader.PushAsync(Content(5), XPointer, 0.1, [("content", Content(5)), ("filename", Filename(5))]);

        var answer = await koreader.PullAsync(Filename(5));

        Assert.Equal(
            ["device", "device_id", "document", "percentage", "progress", "timestamp"],
            answer.Json.EnumerateObject().Select(p => p.Name).Order());
        Assert.Equal(Filename(5), answer.Json.GetProperty("document").GetString());
    }

    // Reference update_progress: a missing or unusable document is 2004, missing fields 2003 (both 403), and
    // nothing is stored. api.json update_progress expected_status [200, 202, 401]: the plugin treats any other as a failure.
    [Theory]
    [InlineData("""{"progress":"p","percentage":0.5,"device":"d"}""", 2004)]
    [InlineData("""{"document":"","progress":"p","percentage":0.5,"device":"d"}""", 2004)]
    [InlineData("""{"document":"a:b","progress":"p","percentage":0.5,"device":"d"}""", 2004)]
    [InlineData("""{"document":"a/b","progress":"p","percentage":0.5,"device":"d"}""", 2007)]
    [InlineData("""{"document":"abc","percentage":0.5,"device":"d"}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","device":"d"}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","percentage":1.5,"device":"d"}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","percentage":"x","device":"d"}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","percentage":0.5}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","percentage":0.5,"device":"d","identifiers":[{"type":"content","value":"zzz"}]}""", 2003)]
    [InlineData("""{"document":"abc","progress":"p","percentage":0.5,"device":"d","identifiers":"abc"}""", 2003)]
    [InlineData("""[1,2]""", 2003)]
    [InlineData("""{"document":""", 2003)]
    public async Task ABrokenPushIsRefusedWithTheReferenceErrorAndStoresNothing(string body, int code)
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        var answer = await koreader.SendAsync(HttpMethod.Put, "/syncs/progress", body);

        Assert.Equal(HttpStatusCode.Forbidden, answer.Status);
        Assert.Equal(code, answer.Json.GetProperty("code").GetInt32());
        Assert.Equal(0L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_documents WHERE user_no = $1", user));
    }

    // Reference get_progress with `ids`: a malformed list is 2003; lib/identifiers.lua parse_query.
    [Fact]
    public async Task AMalformedIdsListIsRefused()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);

        var answer = await koreader.SendAsync(HttpMethod.Get, "/syncs/progress/abc?ids=content", null);

        Assert.Equal(HttpStatusCode.Forbidden, answer.Status);
        Assert.Equal(2003, answer.Json.GetProperty("code").GetInt32());
    }

    // Documents no book maps to are kept per user and bounded: the least recently written goes first.
    [Fact]
    public async Task KeptDocumentsAreBoundedPerUser()
    {
        var user = db.NewUser();
        await using var service = db.ServiceWith(new() { ["KOReader:MaxDocumentsPerUser"] = "3" });
        var (username, password, _) = await db.LoginAsync(user);
        using var koreader = new KoreaderDevice(service.CreateClient(), Prefix, username, KoreaderDevice.KeyOf(password), "Kindle", "k");

        foreach (var n in Enumerable.Range(1, 4))
        {
            Assert.Equal(HttpStatusCode.OK, (await koreader.PushAsync(Md5($"doc {n}"), XPointer, n / 10.0)).Status);
        }

        Assert.Equal("{}", (await koreader.PullAsync(Md5("doc 1"))).Text);
        Assert.Equal(0.4, (await koreader.PullAsync(Md5("doc 4"))).Json.GetProperty("percentage").GetDouble());
        Assert.Equal(3L, await db.ScalarAsync<long>("SELECT count(*) FROM koreader_documents WHERE user_no = $1", user));
    }
}
