using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// Request sequences of public clients, replayed against the service and checked on every answer field
/// they read: the store client kobo-book-downloader (kobodl: <c>kobodl/kobo.py</c> reads the resource map,
/// pages <c>library_sync</c> while <c>x-kobo-sync: continue</c>, and <c>kobodl/actions.py</c> lists a book from
/// its <c>NewEntitlement</c>, leaving out of the unread list a book whose <c>ReadingState.StatusInfo.Status</c>
/// is <c>Finished</c>), and an e-reader's session as Komga's <c>KoboControllerTest</c> and calibre-web drive it
/// (a first sync in pages, a sync with the token that brings nothing, a book opened and its state put).
/// </summary>
public sealed class KoboPublicClientTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/json");

    private static string PathOf(string url) => new Uri(url).PathAndQuery;

    [Fact]
    public async Task KobodlListsTheLibraryAndLeavesTheFinishedBookOutOfItsUnreadList()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 120);
        using var kobo = await db.LinkAsync(user);
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(117)}/state", content: Json("""
            {"ReadingStates":[{"LastModified":"2026-06-01T10:00:00Z","StatusInfo":{"Status":"Finished","LastModified":"2026-06-01T10:00:00Z"},
             "CurrentBookmark":{"ProgressPercent":100,"LastModified":"2026-06-01T10:00:00Z"}}]}
            """));
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(3)}/state", content: Json("""
            {"ReadingStates":[{"LastModified":"2026-06-01T10:00:00Z","StatusInfo":{"Status":"Reading"}}]}
            """));

        // LoadInitializationSettings: GET initialization with the bearer token of device auth; Resources kept.
        kobo.Client.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", "placeholder");
        var resources = (await kobo.JsonAsync(HttpMethod.Get, "/v1/initialization"))!.Value.GetProperty("Resources");
        foreach (var key in new[] { "library_sync", "content_access_book", "user_wishlist", "book", "audiobook" })
        {
            Assert.StartsWith(kobo.ApiEndpoint + "/", resources.GetProperty(key).GetString(), StringComparison.Ordinal);
        }

        // GetMyBookList: page library_sync, keeping the token only while the answer says continue.
        var books = new List<JsonElement>();
        string? token = null;
        var pages = 0;
        do
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, PathOf(resources.GetProperty("library_sync").GetString()!));
            if (token is not null)
            {
                request.Headers.TryAddWithoutValidation("x-kobo-synctoken", token);
            }

            using var response = await kobo.Client.SendAsync(request, TestTimeout.Token);
            response.EnsureSuccessStatusCode();
            books.AddRange(JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement.EnumerateArray().Select(e => e.Clone()));
            pages++;
            token = response.Headers.TryGetValues("x-kobo-sync", out var sync) && sync.Single() == "continue"
                ? response.Headers.GetValues("x-kobo-synctoken").Single()
                : null;
        }
        while (token is not null);

        // __GetBookList: the NewEntitlement items, minus previews, refunds and (without --all) finished books.
        var entitlements = books.Where(b => b.TryGetProperty("NewEntitlement", out _)).Select(b => b.GetProperty("NewEntitlement")).ToList();
        Assert.Equal(2, pages);
        Assert.Equal(120, entitlements.Count);
        Assert.All(entitlements, e =>
        {
            Assert.Equal("Full", e.GetProperty("BookEntitlement").GetProperty("Accessibility").GetString());
            Assert.False(e.GetProperty("BookEntitlement").GetProperty("IsLocked").GetBoolean());
            Assert.False(e.GetProperty("BookEntitlement").GetProperty("IsRemoved").GetBoolean());
            var metadata = e.GetProperty("BookMetadata");
            Assert.True(BookUuid.TryParse(metadata.GetProperty("RevisionId").GetString(), out _));
            Assert.StartsWith("Book ", metadata.GetProperty("Title").GetString(), StringComparison.Ordinal);
            Assert.Equal(JsonValueKind.Array, metadata.GetProperty("ContributorRoles").ValueKind);
            Assert.Equal(JsonValueKind.String, e.GetProperty("ReadingState").GetProperty("StatusInfo").GetProperty("Status").ValueKind);
        });
        var unread = entitlements.Where(e => e.GetProperty("ReadingState").GetProperty("StatusInfo").GetProperty("Status").GetString() != "Finished")
            .Select(e => e.GetProperty("BookMetadata").GetProperty("RevisionId").GetString()).ToHashSet();
        Assert.Equal(119, unread.Count);
        Assert.DoesNotContain(Uuid(117), unread);
        Assert.Contains(Uuid(3), unread);
        Assert.Equal("Author 1", entitlements.Single(e => e.GetProperty("BookMetadata").GetProperty("RevisionId").GetString() == Uuid(1))
            .GetProperty("BookMetadata").GetProperty("ContributorRoles")[0].GetProperty("Name").GetString());
    }

    [Fact]
    public async Task AnEReadersSessionSyncsInPagesEachBookWithItsStateThenCarriesThePutStateAsAChange()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 101);
        using var kobo = await db.LinkAsync(user);

        // The first sync, in pages (Komga's "syncing for the first time then books are synced").
        var first = await kobo.SyncPageAsync(null);
        var second = await kobo.SyncPageAsync(first.Token);
        var again = await kobo.SyncPageAsync(second.Token);

        Assert.True(first.Continue);
        Assert.Equal(100, first.Items.Length);
        Assert.False(second.Continue);
        Assert.Single(second.Items);
        Assert.Empty(again.Items);
        Assert.All(first.Items.Concat(second.Items), item =>
        {
            var entitlement = item.GetProperty("NewEntitlement");
            var id = entitlement.GetProperty("BookEntitlement").GetProperty("Id").GetString()!;
            var state = entitlement.GetProperty("ReadingState");
            KoboStoreAnswersTests.AssertNeverOpened(state, id, entitlement.GetProperty("BookEntitlement").GetProperty("Created").GetString()!);
        });

        // The reader opens book 5: the device reads its state, then puts it as it reads (calibre-web's HandleStateRequest).
        var opened = Assert.Single((await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(5)}/state"))!.Value.EnumerateArray());
        var put = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(5)}/state", content: Json("""
            {"ReadingStates":[{"EntitlementId":"x","LastModified":"2026-07-01T09:30:00.500Z","PriorityTimestamp":"2026-07-01T09:30:00.500Z",
             "CurrentBookmark":{"LastModified":"2026-07-01T09:30:00.500Z","ProgressPercent":8,"ContentSourceProgressPercent":40,
                                "Location":{"Value":"kobo.9.4","Type":"KoboSpan","Source":"OEBPS/ch2.xhtml"}},
             "Statistics":{"LastModified":"2026-07-01T09:30:00.500Z","SpentReadingMinutes":6,"RemainingTimeMinutes":240},
             "StatusInfo":{"LastModified":"2026-07-01T09:30:00.500Z","Status":"Reading","TimesStartedReading":1}}]}
            """)))!.Value;
        var changed = await kobo.SyncPageAsync(again.Token);

        Assert.Equal("ReadyToRead", opened.GetProperty("StatusInfo").GetProperty("Status").GetString());
        var update = Assert.Single(put.GetProperty("UpdateResults").EnumerateArray());
        Assert.Equal(
            ["EntitlementId", "CurrentBookmarkResult", "StatisticsResult", "StatusInfoResult", "LastModified", "PriorityTimestamp"],
            update.EnumerateObject().Select(p => p.Name));
        Assert.Equal("2026-07-01T09:30:00Z", update.GetProperty("PriorityTimestamp").GetString());
        var state = Assert.Single(changed.Items).GetProperty("ChangedReadingState").GetProperty("ReadingState");
        Assert.Equal(Uuid(5), state.GetProperty("EntitlementId").GetString());
        Assert.Equal("2026-07-01T09:30:00Z", state.GetProperty("PriorityTimestamp").GetString());
        Assert.Equal(opened.GetProperty("Created").GetString(), state.GetProperty("Created").GetString());
        Assert.Equal("Reading", state.GetProperty("StatusInfo").GetProperty("Status").GetString());
        Assert.Equal(6, state.GetProperty("Statistics").GetProperty("SpentReadingMinutes").GetInt32());
        Assert.Equal(8, state.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetDouble());
        Assert.Equal("kobo.9.4", state.GetProperty("CurrentBookmark").GetProperty("Location").GetProperty("Value").GetString());
    }
}
