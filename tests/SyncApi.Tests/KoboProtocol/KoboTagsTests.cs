using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// A Kobo e-reader's tags as calibre-web serves them (cps/kobo.py: HandleTagCreate, HandleTagUpdate,
/// HandleTagAddItem, HandleTagRemoveItem, sync_shelves), on the native collections: what a Kobo does is
/// seen over REST, and what another device does reaches the Kobo in its library sync.
/// </summary>
public sealed class KoboTagsTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-3);

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    /// <summary>A body with the device's own property names (PascalCase), not the web defaults' camelCase.</summary>
    private static JsonContent Body(object body) => JsonContent.Create(body, options: new JsonSerializerOptions());

    private static object Items(params string[] revisions) =>
        revisions.Select(r => new { RevisionId = r, Type = "ProductRevisionTagItem" }).ToArray();

    private static (string Kind, JsonElement Tag) Tag(JsonElement item)
    {
        var property = Assert.Single(item.EnumerateObject());
        return (property.Name, property.Value.GetProperty("Tag"));
    }

    private static IEnumerable<(string Kind, JsonElement Tag)> Tags(IEnumerable<JsonElement> items) =>
        items.Where(i => i.EnumerateObject().First().Name.EndsWith("Tag", StringComparison.Ordinal)).Select(Tag);

    private async Task<string> CreateAsync(KoboReader kobo, string name, params string[] revisions)
    {
        var created = await kobo.JsonAsync(HttpMethod.Post, "/v1/library/tags", 201, Body(new { Name = name, Items = Items(revisions) }));
        return created!.Value.GetString()!;
    }

    [Fact]
    public async Task ATagCreatedOnTheKoboIsACollectionOtherDevicesSeeOverRestAndThePull()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);

        // An unknown RevisionId and an item of another type are skipped, as calibre-web skips them.
        var id = await CreateAsync(kobo, "Holiday", Uuid(2), Uuid(3), "11111111-2222-3333-4444-555555555555");
        var listed = Assert.Single(await phone.ListCollectionsAsync(user));
        var (changes, _) = await phone.PullAllAsync(user);

        Assert.True(Guid.TryParse(id, out _));
        Assert.Equal((id, "Holiday"), (listed.Str("id"), listed.Str("name")));
        Assert.Equal(new long[] { 2, 3 }, listed.Books());
        Assert.Contains(changes, c => c.Str("kind") == "collection" && c.Str("id") == id);
    }

    [Fact]
    public async Task ATagCreatedOnTheKoboIsListedAndPulledOverGrpc()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var kobo = await db.LinkAsync(user);
        var id = await CreateAsync(kobo, "Commute", Uuid(1), Uuid(2));
        using var grpc = new SyncGrpcTestHost(db.ConnectionString);
        var auth = new Metadata { { "authorization", $"Bearer {TestTokens.For(user, "desktop")}" } };

        var listed = await grpc.Client.Sync.ListCollectionsAsync(new ListCollectionsRequest { UserNo = user }, auth, cancellationToken: TestTimeout.Token);
        var pulled = await grpc.Client.Sync.PullChangesAsync(new PullChangesRequest { UserNo = user, PageSize = 100 }, auth, cancellationToken: TestTimeout.Token);

        var collection = Assert.Single(listed.Collections);
        Assert.Equal((id, "Commute"), (collection.CollectionId, collection.Name));
        Assert.Equal(new long[] { 1, 2 }, collection.BookNos);
        var change = Assert.Single(pulled.Changes, c => c.ChangeCase == SyncChange.ChangeOneofCase.Collection);
        Assert.Equal((id, "Commute", false), (change.Collection.Collection.CollectionId, change.Collection.Collection.Name, change.Collection.Collection.Deleted));
    }

    [Fact]
    public async Task ACreateOfALiveTagsNameIsThatTagSoARetryMakesNoSecond()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);

        var first = await CreateAsync(kobo, "Again", Uuid(1));
        var second = await CreateAsync(kobo, "Again", Uuid(2));

        Assert.Equal(first, second);
        var only = Assert.Single(await db.Device(user).ListCollectionsAsync(user));
        Assert.Equal(new long[] { 1, 2 }, only.Books());
    }

    [Fact]
    public async Task RenameAddRemoveAndDeleteOnTheKoboChangeTheCollection()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);
        var id = await CreateAsync(kobo, "Before", Uuid(1));

        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/tags/{id}", 200, Body(new { Name = "After" }));
        await kobo.JsonAsync(HttpMethod.Post, $"/v1/library/tags/{id}/items", 201, Body(new { Items = Items(Uuid(2), Uuid(3)) }));
        await kobo.JsonAsync(HttpMethod.Post, $"/v1/library/tags/{id}/items/delete", 200, Body(new { Items = Items(Uuid(1)) }));
        var renamed = await phone.GetCollectionAsync(user, id);
        await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/tags/{id}", 200);

        Assert.Equal("After", renamed.Str("name"));
        Assert.Equal(new long[] { 2, 3 }, renamed.Books());
        Assert.True((await phone.GetCollectionAsync(user, id)).GetProperty("deleted").GetBoolean());
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/tags/{id}", 404, Body(new { Name = "Gone" }));
    }

    [Fact]
    public async Task AKoboCreateOfAnExistingNameBringsTheWholeTagInTheNextSync()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);
        var shared = Guid.NewGuid();
        await phone.PushCollectionsAsync(user, [Upsert(shared, "Shared", T0), AddBooks(shared, T0, 1, 2)]);
        var (_, token, _) = await kobo.SyncAsync(null);

        // The Kobo made a tag of that name offline with one of the books: it is the same collection.
        var id = await CreateAsync(kobo, "Shared", Uuid(1));
        var (items, _, _) = await kobo.SyncAsync(token);

        Assert.Equal(shared.ToString("D"), id);
        var (kind, tag) = Assert.Single(Tags(items));
        Assert.Equal(("ChangedTag", 2), (kind, tag.GetProperty("Items").GetArrayLength()));
    }

    [Fact]
    public async Task TheStoresOwnTagItemsAddressWithACapitalIAddsItems()
    {
        // The store's resources name it "/v1/library/tags/{TagId}/Items" (tag_items); calibre-web routes ".../items".
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var kobo = await db.LinkAsync(user);
        var id = await CreateAsync(kobo, "Capital");

        await kobo.JsonAsync(HttpMethod.Post, $"/v1/library/tags/{id}/Items", 201, Body(new { Items = Items(Uuid(2)) }));

        Assert.Equal(new long[] { 2 }, (await db.Device(user).GetCollectionAsync(user, id)).Books());
    }

    [Fact]
    public async Task ACollectionMadeOnAnotherDeviceReachesTheKoboAsANewTagThenAChangedTagThenADeletedTag()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);
        var (_, token, _) = await kobo.SyncAsync(null);
        var id = Guid.NewGuid();

        await phone.PushCollectionsAsync(user, [Upsert(id, "From the phone", T0), AddBooks(id, T0, 3, 1)]);
        var (created, token2, _) = await kobo.SyncAsync(token);
        await phone.PushCollectionsAsync(user, [Upsert(id, "Renamed", T0.AddMinutes(1))]);
        var (changed, token3, _) = await kobo.SyncAsync(token2);
        await phone.PushCollectionsAsync(user, [DeleteCollection(id, T0.AddMinutes(2))]);
        var (deleted, token4, _) = await kobo.SyncAsync(token3);
        var (nothing, _, _) = await kobo.SyncAsync(token4);

        var (kind, tag) = Assert.Single(Tags(created));
        Assert.Equal(("NewTag", id.ToString("D"), "From the phone", "UserTag"), (kind, tag.Str("Id"), tag.Str("Name"), tag.Str("Type")));
        Assert.Equal(
            [(Uuid(1), "ProductRevisionTagItem"), (Uuid(3), "ProductRevisionTagItem")],
            tag.GetProperty("Items").EnumerateArray().Select(i => (i.Str("RevisionId"), i.Str("Type"))).ToArray());
        Assert.True(tag.TryGetProperty("Created", out _) && tag.TryGetProperty("LastModified", out _));
        var (changedKind, changedTag) = Assert.Single(Tags(changed));
        Assert.Equal(("ChangedTag", "Renamed"), (changedKind, changedTag.Str("Name")));
        var (deletedKind, deletedTag) = Assert.Single(Tags(deleted));
        Assert.Equal(("DeletedTag", id.ToString("D")), (deletedKind, deletedTag.Str("Id")));
        Assert.Equal(["Id", "LastModified"], deletedTag.EnumerateObject().Select(p => p.Name));
        Assert.Empty(Tags(nothing));
    }

    [Fact]
    public async Task AFullSyncBringsLiveTagsAsNewAndDeletedOnesAsDeleted()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var phone = db.Device(user);
        Guid live = Guid.NewGuid(), gone = Guid.NewGuid();
        await phone.PushCollectionsAsync(user, [Upsert(live, "Live", T0), Upsert(gone, "Gone", T0), DeleteCollection(gone, T0.AddMinutes(1))]);
        using var kobo = await db.LinkAsync(user);

        var (items, _, _) = await kobo.SyncAsync(null);

        Assert.Equal(
            [("NewTag", live.ToString("D")), ("DeletedTag", gone.ToString("D"))],
            Tags(items).Select(t => (t.Kind, t.Tag.Str("Id"))).OrderByDescending(t => t.Kind).ToArray());
    }

    [Fact]
    public async Task LargeTagsArePagedByBytesAndEachArrivesOnce()
    {
        // 40 tags of 20 books (about 1.9 KB each as the device reads them) in pages of at most 16 KiB.
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 20);
        var books = Enumerable.Range(1, 20).Select(b => (long)b).ToArray();
        var ids = Enumerable.Range(0, 40).Select(_ => Guid.NewGuid()).ToArray();
        using var phone = db.Device(user);
        await phone.PushCollectionsAsync(user, [.. ids.SelectMany(id => new[] { Upsert(id, "Shelf", T0), AddBooks(id, T0, books) })]);
        using var service = db.ServiceWith(new() { ["Paging:MaxPageBytes"] = "16384" });
        using var kobo = await db.LinkAsync(user, service);

        var (items, _, pages) = await kobo.SyncAsync(null);

        var tags = Tags(items).ToArray();
        Assert.Equal(ids.Select(i => i.ToString("D")).Order(), tags.Select(t => t.Tag.Str("Id")).Order());
        Assert.All(tags, t => Assert.Equal(20, t.Tag.GetProperty("Items").GetArrayLength()));
        Assert.True(pages >= 4, $"{pages} pages: 40 tags of about 1.9 KB do not fit 16 KiB pages in fewer than 4");
    }

    [Fact]
    public async Task ATagTheKoboCreatedAndAnotherDeviceDeletedIsDeletedOnTheKobo()
    {
        var user = db.NewUser();
        using var kobo = await db.LinkAsync(user);
        using var phone = db.Device(user);
        var (_, token, _) = await kobo.SyncAsync(null);
        var id = await CreateAsync(kobo, "Short-lived");

        await phone.PushCollectionsAsync(user, [DeleteCollection(Guid.Parse(id), DateTimeOffset.UtcNow)]);
        var (items, _, _) = await kobo.SyncAsync(token);

        Assert.Equal([("DeletedTag", id)], Tags(items).Select(t => (t.Kind, t.Tag.Str("Id"))).ToArray());
    }

    [Fact]
    public async Task ALibrarySyncTokenFromBeforeAPurgedTagDeletionStartsAFullSync()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var kobo = await db.LinkAsync(user);
        var id = await CreateAsync(kobo, "Soon gone");
        var (_, before, _) = await kobo.SyncAsync(null);
        await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/tags/{id}", 200);
        await using (var age = db.DataSource.CreateCommand("UPDATE collections SET updated_at = now() - interval '91 days' WHERE collection_id = $1"))
        {
            age.Parameters.Add(new Npgsql.NpgsqlParameter<Guid> { TypedValue = Guid.Parse(id) });
            await age.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await new Kobo.Sync.Storage.Purges.TombstonePurge(db.DataSource).PurgeAsync(DateTimeOffset.UtcNow.AddDays(-90), 100, TestTimeout.Token);
        var (items, _, _) = await kobo.SyncAsync(before);

        // A full sync: every owned book is entitled again.
        Assert.Equal(2, items.Count(i => i.EnumerateObject().First().Name == "NewEntitlement"));
        Assert.Empty(Tags(items));
    }

    [Fact]
    public async Task AnItemWhoseRevisionIdNoTextCanCarryIsSkippedAsAnUnknownBook()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 1);
        using var kobo = await db.LinkAsync(user);
        var body = "{\"Name\":\"Odd\",\"Items\":[{\"RevisionId\":\"\\ud800\",\"Type\":\"ProductRevisionTagItem\"},"
            + "{\"RevisionId\":\"" + Uuid(1) + "\",\"Type\":\"ProductRevisionTagItem\"}]}";

        using var content = new StringContent(body, Encoding.UTF8, "application/json");
        var id = (await kobo.JsonAsync(HttpMethod.Post, "/v1/library/tags", 201, content))!.Value.GetString()!;
        using var phone = db.Device(user);
        var collection = await phone.GetCollectionAsync(user, id);

        Assert.Equal(["1"], collection.GetProperty("books").EnumerateArray().Select(b => b.GetString()));
    }

    [Theory]
    [InlineData("POST", "/v1/library/tags", "{\"Items\":[]}")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":\"\",\"Items\":[]}")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":\"   \",\"Items\":[]}")]
    [InlineData("PUT", "/v1/library/tags/{0}", "{\"Name\":\" \\t \"}")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":\"x\"}")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":\"x\",\"Items\":{}}")]
    [InlineData("POST", "/v1/library/tags", "[1]")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":")]
    [InlineData("PUT", "/v1/library/tags/{0}", "{\"Name\":7}")]
    [InlineData("POST", "/v1/library/tags", "{\"Name\":\"\\ud800\",\"Items\":[]}")] // half a surrogate pair
    [InlineData("PUT", "/v1/library/tags/{0}", "{\"Name\":\"a\\udfff\"}")]
    [InlineData("POST", "/v1/library/tags/{0}/items", "{}")]
    [InlineData("POST", "/v1/library/tags/{0}/items/delete", "{\"Items\":\"x\"}")]
    public async Task AMalformedTagRequestIsA400(string method, string path, string body)
    {
        var user = db.NewUser();
        using var kobo = await db.LinkAsync(user);
        var id = await CreateAsync(kobo, "Existing");

        using var content = new StringContent(body, Encoding.UTF8, "application/json");
        await kobo.JsonAsync(new HttpMethod(method), string.Format(System.Globalization.CultureInfo.InvariantCulture, path, id), 400, content);
    }

    [Theory]
    [InlineData("PUT", "/v1/library/tags/{0}")]
    [InlineData("DELETE", "/v1/library/tags/{0}")]
    [InlineData("POST", "/v1/library/tags/{0}/items")]
    [InlineData("POST", "/v1/library/tags/{0}/items/delete")]
    [InlineData("PUT", "/v1/library/tags/not-a-tag")]
    public async Task ATagTheUserDoesNotHaveIsA404(string method, string path)
    {
        var user = db.NewUser();
        using var kobo = await db.LinkAsync(user);

        using var content = new StringContent("{\"Name\":\"x\",\"Items\":[]}", Encoding.UTF8, "application/json");
        await kobo.JsonAsync(new HttpMethod(method), string.Format(System.Globalization.CultureInfo.InvariantCulture, path, Guid.NewGuid()), 404, content);
    }
}
