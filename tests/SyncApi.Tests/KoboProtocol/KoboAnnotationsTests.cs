using System.Net;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// A Kobo e-reader's annotation sync replayed from the public record (calibre-web #2155, calibre-web-nextgen
/// #1666 and #1679): PATCH up, checkforchanges, GET down, on the same highlights as the native API.
/// </summary>
public sealed class KoboAnnotationsTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private const long Book = 3;
    private const string A = "ede9e626-23d2-45da-864e-5d1b253cdc79";
    private const string B = "0b7c1d52-9f3e-4a58-b1a2-6f0e4c3d2a10";

    // As a Kobo sent it in calibre-web #2155: escaped dots, a long fraction, its own member order.
    private const string LocationA =
        """{"span": {"chapterFilename": "text/part0004.html","chapterProgress": 0.88888888888888884,"chapterTitle": "Introduction to 30th Anniversary Edition","endChar": 64,"endPath": "span#kobo\\.30\\.1","startChar": 0,"startPath": "span#kobo\\.30\\.1"}}""";

    private const string LocationB =
        """{"span":{"chapterFilename":"text/part0007.html","chapterProgress":0.25,"chapterTitle":"Two","endChar":12,"endPath":"span#kobo\\.4\\.2","startChar":5,"startPath":"span#kobo\\.4\\.1"}}""";

    private static readonly string ContentId = BookUuid.Format(new BookNo(Book));

    private static string Annotation(string id, string text, string at, string location, string color = "#F6F3B3", string? note = null, string type = "highlight") =>
        $$"""{"clientLastModifiedUtc": "{{at}}", "highlightColor": "{{color}}", "highlightedText": {{JsonSerializer.Serialize(text)}}, "id": "{{id}}", "location": {{location}}{{(note is null ? "" : $", \"noteText\": {JsonSerializer.Serialize(note)}")}}, "type": "{{type}}"}""";

    private static string Patch(string[] updated, string[]? deleted = null) =>
        $$"""{"updatedAnnotations": [{{string.Join(", ", updated)}}], "deletedAnnotationIds": [{{string.Join(", ", (deleted ?? []).Select(d => $"\"{d}\""))}}]}""";

    private async Task<(long User, KoboReadingServices Kobo)> LinkedReaderAsync()
    {
        var user = db.NewUser();
        await KoboReadingServices.GrantAsync(db, user, Book);
        return (user, await KoboReadingServices.LinkAsync(db, user));
    }

    private static JsonElement[] Annotations(string body) =>
        JsonDocument.Parse(body).RootElement.GetProperty("annotations").EnumerateArray().Select(e => e.Clone()).ToArray();

    [Fact]
    public async Task APatchOfNewEditedAndDeletedAnnotationsIsVisibleInTheNativePullAndTheAnnotationsGet()
    {
        var (user, kobo) = await LinkedReaderAsync();
        using var native = db.Device(user, "phone-app");

        var created = await kobo.PatchOkAsync(ContentId, Patch([
            Annotation(A, "If something is true, no amount of wishful thinking can undo it.", "2021-11-01T13:10:10Z", LocationA, color: "#E8AFCF"),
            Annotation(B, "Second passage", "2021-11-01T13:11:00Z", LocationB, color: "#B2E1E8", note: "my note", type: "note")]));
        var (afterCreate, etag) = await kobo.GetOkAsync(ContentId);

        Assert.Equal([(A, "stored"), (B, "stored")], created.Select(r => (r.Str("id"), r.Str("status"))));
        Assert.StartsWith($"W/\"kobosync-{user}-{Book}-", etag, StringComparison.Ordinal);
        var root = JsonDocument.Parse(afterCreate).RootElement;
        Assert.Equal(JsonValueKind.Null, root.GetProperty("nextPageOffsetToken").ValueKind);
        var a = Annotations(afterCreate).Single(x => x.Str("id") == A);
        Assert.Equal(
            ("highlight", "If something is true, no amount of wishful thinking can undo it.", "#E8AFCF", "2021-11-01T13:10:10Z"),
            (a.Str("type"), a.Str("highlightedText"), a.Str("highlightColor"), a.Str("clientLastModifiedUtc")));
        Assert.False(a.TryGetProperty("noteText", out _));
        Assert.Contains("\"location\":" + LocationA + "}", afterCreate, StringComparison.Ordinal);
        var b = Annotations(afterCreate).Single(x => x.Str("id") == B);
        Assert.Equal(("note", "my note", "#B2E1E8"), (b.Str("type"), b.Str("noteText"), b.Str("highlightColor")));
        Assert.Equal(["clientLastModifiedUtc", "highlightColor", "highlightedText", "id", "location", "noteText", "type"], b.EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal));

        var (pulled, _) = await native.PullAllAsync(user);
        var nativeA = pulled.Single(c => c.Str("key") == A);
        Assert.Equal(
            ("3", "pink", LocationA, 0, 64),
            (nativeA.Str("bookNo"), nativeA.Str("color"), nativeA.Str("location"), nativeA.GetProperty("start").GetInt32(), nativeA.GetProperty("length").GetInt32()));
        var nativeB = pulled.Single(c => c.Str("key") == B);
        // The span ends in another element than it starts in: the length is the text's.
        Assert.Equal(("blue", "my note", 5, "Second passage".Length), (nativeB.Str("color"), nativeB.Str("note"), nativeB.GetProperty("start").GetInt32(), nativeB.GetProperty("length").GetInt32()));

        var edited = await kobo.PatchOkAsync(ContentId, Patch([Annotation(A, "If something is true", "2021-11-02T08:00:00Z", LocationA, color: "#C6E09E", note: "added")], [B]));
        var (afterEdit, etagAfterEdit) = await kobo.GetOkAsync(ContentId);
        var (pulledAfter, _) = await native.PullAllAsync(user);

        Assert.Equal([(A, "stored"), (B, "stored")], edited.Select(r => (r.Str("id"), r.Str("status"))));
        Assert.NotEqual(etag, etagAfterEdit);
        var only = Assert.Single(Annotations(afterEdit));
        Assert.Equal((A, "note", "If something is true", "added", "#C6E09E"), (only.Str("id"), only.Str("type"), only.Str("highlightedText"), only.Str("noteText"), only.Str("highlightColor")));
        Assert.True(pulledAfter.Single(c => c.Str("key") == B).GetProperty("deleted").GetBoolean());
        Assert.Equal(("green", "added"), (pulledAfter.Single(c => c.Str("key") == A).Str("color"), pulledAfter.Single(c => c.Str("key") == A).Str("note")));
    }

    [Fact]
    public async Task ANativePushWithAKoboLocationReachesTheDeviceAtItsNextCheckAndOneWithoutStaysOffIt()
    {
        var (user, kobo) = await LinkedReaderAsync();
        using var native = db.Device(user, "phone-app");
        await kobo.PatchOkAsync(ContentId, Patch([Annotation(A, "From the reader", "2021-11-01T13:10:10Z", LocationA)]));
        var (_, etag) = await kobo.GetOkAsync(ContentId);
        Assert.Empty(await kobo.CheckOkAsync(ContentId, etag));

        var at = DateTimeOffset.UtcNow.AddMinutes(-1);
        await native.PushAsync(
            user,
            new { op = "upsert", bookNo = "3", key = B, text = "From the phone", start = 5, length = 7, color = "blue", modifiedAt = at, location = LocationB },
            Upsert("no-location", "Cannot be placed on the page", at, book: Book));
        var named = await kobo.CheckOkAsync(ContentId, etag);
        var (body, _) = await kobo.GetOkAsync(ContentId);

        Assert.Equal([ContentId], named);
        var annotations = Annotations(body);
        Assert.Equal([B, A], annotations.Select(x => x.Str("id")).Order(StringComparer.Ordinal));
        var b = annotations.Single(x => x.Str("id") == B);
        Assert.Equal(("From the phone", "#B2E1E8", "highlight"), (b.Str("highlightedText"), b.Str("highlightColor"), b.Str("type")));
        Assert.Contains("\"location\":" + LocationB + "}", body, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ResendingAPatchStoresNothingNewAndLeavesTheSetUnchanged()
    {
        var (user, kobo) = await LinkedReaderAsync();
        var patch = Patch([Annotation(A, "Once", "2021-11-01T13:10:10Z", LocationA)], [B]);
        await kobo.PatchOkAsync(ContentId, patch);
        var stored = await db.StoredAsync(user);
        var (_, etag) = await kobo.GetOkAsync(ContentId);

        for (var i = 0; i < 3; i++)
        {
            var again = await kobo.PatchOkAsync(ContentId, patch);
            Assert.All(again, r => Assert.Equal("stored", r.Str("status")));
        }

        Assert.Equal(stored, await db.StoredAsync(user));
        Assert.Empty(await kobo.CheckOkAsync(ContentId, etag));
        using var notModified = await kobo.GetAsync(ContentId, ifNoneMatch: etag);
        Assert.Equal(HttpStatusCode.NotModified, notModified.StatusCode);
    }

    [Fact]
    public async Task AStaleEditLosesToTheNewerOneAlreadyStored()
    {
        var (_, kobo) = await LinkedReaderAsync();
        await kobo.PatchOkAsync(ContentId, Patch([Annotation(A, "Newer text", "2021-11-02T10:00:00Z", LocationA)]));

        var stale = await kobo.PatchOkAsync(ContentId, Patch([Annotation(A, "Older text", "2021-11-02T09:00:00Z", LocationA)]));
        var (body, _) = await kobo.GetOkAsync(ContentId);

        Assert.Equal("conflict", Assert.Single(stale).Str("status"));
        Assert.Equal("Newer text", Assert.Single(Annotations(body)).Str("highlightedText"));
    }

    [Fact]
    public async Task AnotherUsersBookAndAContentIdThatIsNoBookAreRefusedAndNothingIsStored()
    {
        var (owner, _) = await LinkedReaderAsync();
        var stranger = db.NewUser();
        var kobo = await KoboReadingServices.LinkAsync(db, stranger);

        using var patch = await kobo.PatchAsync(ContentId, Patch([Annotation(A, "Not mine", "2021-11-01T13:10:10Z", LocationA)]));
        using var get = await kobo.GetAsync(ContentId);
        using var foreign = await kobo.GetAsync("9e5251ad-0000-4000-8000-000000000001");
        var named = await kobo.CheckOkAsync(ContentId, $"W/\"kobosync-{stranger}-{Book}-0-0\"");

        Assert.Equal((HttpStatusCode.NotFound, HttpStatusCode.NotFound, HttpStatusCode.NotFound), (patch.StatusCode, get.StatusCode, foreign.StatusCode));
        Assert.Equal("application/problem+json", patch.Content.Headers.ContentType?.MediaType);
        Assert.Empty(named);
        Assert.Empty(await db.StoredAsync(stranger));
        Assert.Empty(await db.StoredAsync(owner));
    }

    [Fact]
    public async Task AnUnknownSecretIsRefusedBeforeTheBodyIsRead()
    {
        var kobo = new KoboReadingServices(db.Factory.CreateClient(), "/kobo/" + new string('x', 43));

        using var patch = await kobo.PatchAsync(ContentId, "not even JSON");

        Assert.Equal(HttpStatusCode.Unauthorized, patch.StatusCode);
    }

    [Fact]
    public async Task ABodyThatIsNotTheExpectedJsonIs400AndStoresNothing()
    {
        var (user, kobo) = await LinkedReaderAsync();

        using var notJson = await kobo.PatchAsync(ContentId, "{\"updatedAnnotations\": [");
        using var notArray = await kobo.PatchAsync(ContentId, "{\"updatedAnnotations\": {}}");
        using var checkNotArray = await kobo.CheckAsync("{}");

        Assert.Equal((HttpStatusCode.BadRequest, HttpStatusCode.BadRequest, HttpStatusCode.BadRequest), (notJson.StatusCode, notArray.StatusCode, checkNotArray.StatusCode));
        Assert.Contains("updatedAnnotations", await notArray.Content.ReadAsStringAsync(TestTimeout.Token), StringComparison.Ordinal);
        Assert.Empty(await db.StoredAsync(user));
    }
}
