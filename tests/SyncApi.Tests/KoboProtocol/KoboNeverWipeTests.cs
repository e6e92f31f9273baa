using System.Net;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// Never wiping a device (docs/kobo.md): a Kobo replaces its whole set of a book's annotations with a
/// download's answer, and downloads a book only when checkforchanges names it. So the service names a
/// book only when the device's set came from it, and never answers an empty set for a book whose
/// annotations that device never sent.
/// </summary>
public sealed class KoboNeverWipeTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private const long Book = 4;
    private const string A = "5d0b6c2e-8a41-4f0e-9c7b-2e1d3f4a5b6c";
    private const string Location = """{"span":{"chapterFilename":"ch1.xhtml","chapterProgress":0.5,"startChar":2,"endChar":9,"startPath":"span#kobo\\.1\\.1","endPath":"span#kobo\\.1\\.1"}}""";

    // The composite ETag Kobo's own reading services give (calibre-web-nextgen #1666).
    private const string KobosOwnETag = "W/\"A:1408092558-7Uhimw6qgE+J7JpyxBiziA, C:567181005-x\"";

    private static readonly string ContentId = BookUuid.Format(new BookNo(Book));

    private static string Highlight(string id, string at, string text = "a passage") =>
        $$"""{"id":"{{id}}","type":"highlight","highlightedText":"{{text}}","highlightColor":"#F6F3B3","clientLastModifiedUtc":"{{at}}","location":{{Location}}}""";

    private static string Patch(params string[] updated) => $$"""{"updatedAnnotations":[{{string.Join(",", updated)}}],"deletedAnnotationIds":[]}""";

    private async Task<(long User, KoboReadingServices Kobo, HttpClient Native)> LinkedReaderAsync()
    {
        var user = db.NewUser();
        await KoboReadingServices.GrantAsync(db, user, Book);
        return (user, await KoboReadingServices.LinkAsync(db, user), db.Device(user, "phone-app"));
    }

    private static async Task PushNativeAsync(HttpClient native, long user, string key) =>
        await native.PushAsync(user, new
        {
            op = "upsert", bookNo = Book.ToString(System.Globalization.CultureInfo.InvariantCulture), key, text = "from the phone",
            start = 1, length = 4, color = "pink", modifiedAt = DateTimeOffset.UtcNow.AddMinutes(-1), location = Location,
        });

    [Fact]
    public async Task ADownloadOfABookThisDeviceNeverSentAnnotationsOfIsNeverAnEmptySet()
    {
        var (user, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        using var nothingAnywhere = await kobo.GetAsync(ContentId);
        // The service holds highlights of the book, pushed by another device, but none from this one.
        await PushNativeAsync(native, user, "b0b0b0b0-1111-4222-8333-444455556666");

        using var onlyOthers = await kobo.GetAsync(ContentId);

        foreach (var response in new[] { nothingAnywhere, onlyOthers })
        {
            Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
            Assert.DoesNotContain("annotations\"", await response.Content.ReadAsStringAsync(TestTimeout.Token), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task AnEmptyPatchOrOneOfWithheldAnnotationsOnlyDoesNotMakeAnEmptySetAnswerable()
    {
        var (_, kobo, native) = await LinkedReaderAsync();
        using var _ = native;

        await kobo.PatchOkAsync(ContentId, """{"updatedAnnotations":[],"deletedAnnotationIds":[]}""");
        using var afterEmpty = await kobo.GetAsync(ContentId);
        await kobo.PatchOkAsync(ContentId, Patch("""{"id":"e1e1e1e1-1111-4222-8333-444455556666","type":"dogear","clientLastModifiedUtc":"2024-01-16T10:30:00Z","location":{"span":{}}}"""));
        using var afterWithheld = await kobo.GetAsync(ContentId);

        Assert.Equal((HttpStatusCode.NotFound, HttpStatusCode.NotFound), (afterEmpty.StatusCode, afterWithheld.StatusCode));
    }

    [Fact]
    public async Task TwoEReadersLinkedByOneDeviceAreToldApart()
    {
        var user = db.NewUser();
        await KoboReadingServices.GrantAsync(db, user, Book);
        var first = await KoboReadingServices.LinkAsync(db, user, "phone");
        var second = await KoboReadingServices.LinkAsync(db, user, "phone");

        await first.PatchOkAsync(ContentId, Patch(Highlight(A, "2024-01-15T10:30:00Z")));
        using var fromFirst = await first.GetAsync(ContentId);
        using var fromSecond = await second.GetAsync(ContentId);

        Assert.Equal((HttpStatusCode.OK, HttpStatusCode.NotFound), (fromFirst.StatusCode, fromSecond.StatusCode));
    }

    [Fact]
    public async Task CheckForChangesNeverNamesABookWhoseSetDidNotComeFromThisService()
    {
        var (user, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        await kobo.PatchOkAsync(ContentId, Patch(Highlight(A, "2024-01-15T10:30:00Z")));
        await PushNativeAsync(native, user, "c0c0c0c0-1111-4222-8333-444455556666");

        // Kobo's own ETag, none, an empty one, and this service's ETag of another user's book.
        Assert.Empty(await kobo.CheckOkAsync(ContentId, KobosOwnETag));
        Assert.Empty(await kobo.CheckOkAsync(ContentId, null));
        Assert.Empty(await kobo.CheckOkAsync(ContentId, string.Empty));
        Assert.Empty(await kobo.CheckOkAsync(ContentId, $"W/\"kobosync-{user + 1000}-{Book}-1-1\""));
        // The same device, once its set came from this service, is offered the change.
        var (_, etag) = await kobo.GetOkAsync(ContentId);
        await PushNativeAsync(native, user, "d0d0d0d0-1111-4222-8333-444455556666");
        Assert.Equal([ContentId], await kobo.CheckOkAsync(ContentId, etag));
    }

    [Fact]
    public async Task ABookWithAnAnnotationTheServiceCouldNotHoldIsNeverOfferedForDownloadAgain()
    {
        var (user, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        await kobo.PatchOkAsync(ContentId, Patch(Highlight(A, "2024-01-15T10:30:00Z")));
        var (_, etag) = await kobo.GetOkAsync(ContentId);

        // A stylus drawing: no highlighted text, nothing the service can hold.
        var results = await kobo.PatchOkAsync(
            ContentId, Patch("""{"id":"e0e0e0e0-1111-4222-8333-444455556666","type":"markup","highlightColor":"#A0A0A0","clientLastModifiedUtc":"2024-01-16T10:30:00Z","location":{"span":{}}}"""));
        await PushNativeAsync(native, user, "f0f0f0f0-1111-4222-8333-444455556666");

        var withheld = Assert.Single(results);
        Assert.Equal(("e0e0e0e0-1111-4222-8333-444455556666", "withheld"), (withheld.Str("id"), withheld.Str("status")));
        Assert.StartsWith("type:", withheld.Str("reason"), StringComparison.Ordinal);
        Assert.Empty(await kobo.CheckOkAsync(ContentId, etag));
    }

    [Fact]
    public async Task ABookWhoseAnnotationsWereAllSeenDeletedIsAnEmptySetWithItsETag()
    {
        var (_, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        await kobo.PatchOkAsync(ContentId, Patch(Highlight(A, "2024-01-15T10:30:00Z")));
        var (_, etag) = await kobo.GetOkAsync(ContentId);

        await kobo.PatchOkAsync(ContentId, $$"""{"updatedAnnotations":[],"deletedAnnotationIds":["{{A}}"]}""");
        var named = await kobo.CheckOkAsync(ContentId, etag);
        var (body, after) = await kobo.GetOkAsync(ContentId);

        Assert.Equal([ContentId], named);
        Assert.Empty(JsonDocument.Parse(body).RootElement.GetProperty("annotations").EnumerateArray());
        Assert.NotEqual(etag, after);
    }

    [Fact]
    public async Task ABookOverTheLimitIsNeitherOfferedNorCutShort()
    {
        var (_, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        await kobo.PatchOkAsync(ContentId, Patch(Highlight(A, "2024-01-15T10:30:00Z")));
        var (_, etag) = await kobo.GetOkAsync(ContentId);

        var many = Enumerable.Range(0, KoboAnnotations.MaxAnnotationsPerBook).Select(i => Highlight(Guid.NewGuid().ToString(), "2024-01-16T10:30:00Z", "p" + i)).ToArray();
        await kobo.PatchOkAsync(ContentId, Patch(many));
        using var download = await kobo.GetAsync(ContentId);

        Assert.Empty(await kobo.CheckOkAsync(ContentId, etag));
        Assert.Equal(HttpStatusCode.Conflict, download.StatusCode);
        Assert.Equal("application/problem+json", download.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task ABookWhoseAnnotationsPassTheByteBoundIsRefusedNotCutShort()
    {
        var (_, kobo, native) = await LinkedReaderAsync();
        using var _ = native;
        // 500 annotations of 9,500 characters each: about 4.9 MB together, past the 4 MiB a download may
        // carry, though far under the 1,000 annotations; sent in PATCHes under the 1 MiB body limit.
        for (var batch = 0; batch < 10; batch++)
        {
            var annotations = Enumerable.Range(0, 50)
                .Select(i => Highlight(Guid.NewGuid().ToString(), "2024-01-16T10:30:00Z", $"p{batch}-{i} " + new string('x', 9_500)))
                .ToArray();
            await kobo.PatchOkAsync(ContentId, Patch(annotations));
        }

        using var download = await kobo.GetAsync(ContentId);
        var body = await download.Content.ReadAsStringAsync(TestTimeout.Token);

        Assert.Equal(HttpStatusCode.Conflict, download.StatusCode);
        Assert.Equal("application/problem+json", download.Content.Headers.ContentType?.MediaType);
        Assert.Contains("MiB", body, StringComparison.Ordinal);
    }
}
