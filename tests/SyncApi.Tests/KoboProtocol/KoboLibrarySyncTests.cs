using System.Net;
using System.Text.Json;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>A Kobo e-reader's library sync, written from the protocol's public facts (calibre-web's <c>cps/kobo.py</c>).</summary>
public sealed class KoboLibrarySyncTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static (string Kind, JsonElement Entitlement, JsonElement Metadata) Item(JsonElement item)
    {
        var property = Assert.Single(item.EnumerateObject());
        return (property.Name, property.Value.GetProperty("BookEntitlement"), property.Value.GetProperty("BookMetadata"));
    }

    private static long BookOf(JsonElement item)
    {
        Assert.True(BookUuid.TryParse(Item(item).Entitlement.GetProperty("Id").GetString(), out var book));
        return book.Value;
    }

    private Task<bool> SetOwnershipAsync(long user, long book, bool owned) =>
        db.Factory.Services.GetRequiredService<ISyncStore>().SetOwnershipAsync(new UserNo(user), new BookNo(book), owned, TestTimeout.Token);

    [Fact]
    public async Task AFullLibrarySyncPagesToTheEndAndEntitlesEveryOwnedBook()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 250);
        using var kobo = await db.LinkAsync(user);

        var first = await kobo.SyncPageAsync(null);
        var second = await kobo.SyncPageAsync(first.Token);
        var third = await kobo.SyncPageAsync(second.Token);

        Assert.Equal([100, 100, 50], new[] { first.Items.Length, second.Items.Length, third.Items.Length });
        Assert.True(first.Continue);
        Assert.True(second.Continue);
        Assert.False(third.Continue);
        var items = first.Items.Concat(second.Items).Concat(third.Items).ToList();
        Assert.All(items, i => Assert.Equal("NewEntitlement", Item(i).Kind));
        Assert.Equal(await db.OwnedCountAsync(user), items.Count);
        Assert.Equal(Enumerable.Range(1, 250).Select(n => (long)n), items.Select(BookOf).Order());
        Assert.All([first.Token, second.Token, third.Token], t => Assert.StartsWith("kobosync1:", t, StringComparison.Ordinal));
    }

    [Fact]
    public async Task APageOfBooksWithLongTitlesEndsAtTheByteBudgetAndTheSyncStillEntitlesEveryBookOnce()
    {
        // 100 books whose title and author run to 20,000 characters each: 6 MB in one page of 100 before
        // the budget; now pages of about 1 MiB (Paging:MaxPageBytes), plus at most one item.
        const int ItemBytes = 70_000;
        var user = db.NewUser();
        await using (var command = db.DataSource.CreateCommand($"""
            INSERT INTO books (book_no, title, author) SELECT n, repeat('T', 20000), repeat('A', 20000) FROM generate_series(5001, 5100) n
            ON CONFLICT DO NOTHING
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await db.OwnAsync(user, 5001, 5100);
        using var kobo = await db.LinkAsync(user);

        var books = new List<long>();
        string? token = null;
        for (var pages = 1; ; pages++)
        {
            var page = await kobo.SyncPageAsync(token);
            Assert.NotEmpty(page.Items);
            Assert.InRange(page.Items.Sum(i => i.GetRawText().Length), 1, Domain.Requests.PageBudget.DefaultMaxBytes + ItemBytes);
            books.AddRange(page.Items.Select(BookOf));
            token = page.Token;
            if (!page.Continue)
            {
                Assert.InRange(pages, 5, 10);
                break;
            }

            Assert.True(pages < 50, "the sync never ended");
        }

        Assert.Equal(Enumerable.Range(5001, 100).Select(n => (long)n), books.Order());
    }

    [Fact]
    public async Task AnEntitlementCarriesTheFieldsCalibreWebFills()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 4, 4);
        using var kobo = await db.LinkAsync(user);

        var (items, _, _) = await kobo.SyncAsync(null);

        var (kind, entitlement, metadata) = Item(Assert.Single(items));
        var uuid = Uuid(4);
        Assert.Equal("NewEntitlement", kind);
        Assert.Equal(
            ["Accessibility", "ActivePeriod", "Created", "CrossRevisionId", "Id", "IsHiddenFromArchive", "IsLocked", "IsRemoved",
             "LastModified", "OriginCategory", "RevisionId", "Status"],
            entitlement.EnumerateObject().Select(p => p.Name));
        Assert.Equal("Full", entitlement.GetProperty("Accessibility").GetString());
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", entitlement.GetProperty("ActivePeriod").GetProperty("From").GetString());
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", entitlement.GetProperty("Created").GetString());
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", entitlement.GetProperty("LastModified").GetString());
        Assert.All(["CrossRevisionId", "Id", "RevisionId"], name => Assert.Equal(uuid, entitlement.GetProperty(name).GetString()));
        Assert.False(entitlement.GetProperty("IsHiddenFromArchive").GetBoolean());
        Assert.False(entitlement.GetProperty("IsLocked").GetBoolean());
        Assert.False(entitlement.GetProperty("IsRemoved").GetBoolean());
        Assert.Equal("Imported", entitlement.GetProperty("OriginCategory").GetString());
        Assert.Equal("Active", entitlement.GetProperty("Status").GetString());

        Assert.All(["CoverImageId", "CrossRevisionId", "EntitlementId", "RevisionId", "WorkId"], name => Assert.Equal(uuid, metadata.GetProperty(name).GetString()));
        Assert.Equal("Book 4", metadata.GetProperty("Title").GetString());
        Assert.Equal(["Author 4"], metadata.GetProperty("Contributors").EnumerateArray().Select(c => c.GetString()));
        Assert.Equal("Author 4", Assert.Single(metadata.GetProperty("ContributorRoles").EnumerateArray()).GetProperty("Name").GetString());
        Assert.Equal("de", metadata.GetProperty("Language").GetString());
        Assert.Equal(["00000000-0000-0000-0000-000000000001"], metadata.GetProperty("Categories").EnumerateArray().Select(c => c.GetString()));
        Assert.Equal("00000000-0000-0000-0000-000000000001", metadata.GetProperty("Genre").GetString());
        Assert.Equal("USD", metadata.GetProperty("CurrentDisplayPrice").GetProperty("CurrencyCode").GetString());
        Assert.Equal(0, metadata.GetProperty("CurrentDisplayPrice").GetProperty("TotalAmount").GetInt32());
        Assert.Equal(0, metadata.GetProperty("CurrentLoveDisplayPrice").GetProperty("TotalAmount").GetInt32());
        Assert.Empty(metadata.GetProperty("ExternalIds").EnumerateArray());
        Assert.False(metadata.GetProperty("IsPreOrder").GetBoolean());
        Assert.True(metadata.GetProperty("IsSocialEnabled").GetBoolean());
        Assert.Equal(string.Empty, metadata.GetProperty("Publisher").GetProperty("Imprint").GetString());

        // No content origin configured: the book is listed, with nowhere to download it from.
        Assert.Empty(metadata.GetProperty("DownloadUrls").EnumerateArray());
    }

    [Fact]
    public async Task WithAContentOriginEachBookHasItsDownloadUrl()
    {
        using var service = db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = "https://files.example.org/library/" });
        var user = db.NewUser();
        await db.OwnAsync(user, 9, 9);
        await using (var file = db.DataSource.CreateCommand("INSERT INTO book_files (book_no, format, size) VALUES (9, 'EPUB3', 4096) ON CONFLICT DO NOTHING"))
        {
            await file.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        using var kobo = await db.LinkAsync(user, service);

        var (items, _, _) = await kobo.SyncAsync(null);

        var url = Assert.Single(Item(Assert.Single(items)).Metadata.GetProperty("DownloadUrls").EnumerateArray());
        Assert.Equal("EPUB3", url.GetProperty("Format").GetString());
        Assert.Equal(4096, url.GetProperty("Size").GetInt64());
        Assert.Equal("https://files.example.org/library/ebooks/9.epub", url.GetProperty("Url").GetString());
        Assert.Equal("Generic", url.GetProperty("Platform").GetString());
        Assert.Equal("en", Item(items[0]).Metadata.GetProperty("Language").GetString()); // book 9 has none: calibre-web's default
        Assert.Empty(Item(items[0]).Metadata.GetProperty("Contributors").EnumerateArray()); // nor an author
    }

    [Fact]
    public async Task ADeltaSyncAfterAPurchaseAndAfterAnArchiveCarriesOnlyThatChange()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 120);
        using var kobo = await db.LinkAsync(user);
        var (_, caughtUp, _) = await kobo.SyncAsync(null);
        var (nothing, stillCaughtUp, _) = await kobo.SyncAsync(caughtUp);
        Assert.Empty(nothing);

        Assert.True(await SetOwnershipAsync(user, 300, owned: true));
        var (bought, afterPurchase, pages) = await kobo.SyncAsync(stillCaughtUp);

        var purchase = Assert.Single(bought);
        Assert.Equal(1, pages);
        Assert.Equal("NewEntitlement", Item(purchase).Kind);
        Assert.Equal(300, BookOf(purchase));

        Assert.Null(await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/{Uuid(7)}", expect: 204));
        var (archived, afterArchive, _) = await kobo.SyncAsync(afterPurchase);

        var removal = Assert.Single(archived);
        Assert.Equal("ChangedEntitlement", Item(removal).Kind);
        Assert.Equal(7, BookOf(removal));
        Assert.True(Item(removal).Entitlement.GetProperty("IsRemoved").GetBoolean());
        Assert.False(await db.OwnsAsync(user, 7));
        Assert.Empty((await kobo.SyncAsync(afterArchive)).Items);
        Assert.Equal(120, await db.OwnedCountAsync(user)); // 120 + the purchase - the archived one
    }

    [Fact]
    public async Task ArchivingABookTwiceIsDone()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var kobo = await db.LinkAsync(user);

        Assert.Null(await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/{Uuid(2)}", expect: 204));
        Assert.Null(await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/{Uuid(2)}", expect: 204));

        Assert.True(await db.OwnsAsync(user, 1));
        Assert.False(await db.OwnsAsync(user, 2));
    }

    [Theory]
    [InlineData("eyJ0eXAiOjEsInZlciI6bnVsbCwicHR5cCI6IlN5bmNUb2tlbiJ9.eyJJbnRlcm5hbFN5bmNUb2tlbiI6ImV5SjBlWEFpT2pFc0luWmxjaUk2SW5ZeUlpd2ljSFI1Y0NJNklsTjVibU5VYjJ0bGJpSjkifQ")]
    [InlineData("garbage")]
    [InlineData("kobosync1:garbage")]
    [InlineData("kobosync1:")]
    [InlineData("kobosync1:a.b")]
    public async Task AForeignOrGarbageSyncTokenGivesAFullSync(string token)
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 130);
        using var kobo = await db.LinkAsync(user);

        var (items, next, pages) = await kobo.SyncAsync(token);

        Assert.Equal(130, items.Count);
        Assert.Equal(2, pages);
        Assert.StartsWith("kobosync1:", next, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnotherUsersOrAnAlteredTokenGivesAFullSync()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        await db.OwnAsync(user, 1, 30);
        await db.OwnAsync(other, 1, 10);
        using var kobo = await db.LinkAsync(user);
        using var otherKobo = await db.LinkAsync(other);
        var (_, othersToken, _) = await otherKobo.SyncAsync(null);
        var (_, ownToken, _) = await kobo.SyncAsync(null);
        var altered = ownToken[..^2] + (ownToken[^2] == 'A' ? "BB" : "AA");

        Assert.Equal(30, (await kobo.SyncAsync(othersToken)).Items.Count);
        Assert.Equal(30, (await kobo.SyncAsync(altered)).Items.Count);
        Assert.Empty((await kobo.SyncAsync(ownToken)).Items);
    }

    [Fact]
    public async Task ANativeChangeFeedTokenOfTheSameUserGivesAFullSync()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 30);
        using var kobo = await db.LinkAsync(user);
        using var device = db.Device(user);
        using var feed = await device.GetAsync(new Uri($"/v1/users/{user}/changes", UriKind.Relative), TestTimeout.Token);
        Assert.Equal(HttpStatusCode.OK, feed.StatusCode);
        var nativeToken = JsonDocument.Parse(await feed.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement.GetProperty("syncToken").GetString();

        var (items, next, _) = await kobo.SyncAsync(LibrarySync.TokenPrefix + nativeToken);

        Assert.Equal(30, items.Count);
        Assert.Empty((await kobo.SyncAsync(next)).Items);
    }

    [Fact]
    public async Task AKoboLibraryTokenOfTheSameUserIsRefusedByTheNativePull()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var kobo = await db.LinkAsync(user);
        var (_, koboToken, _) = await kobo.SyncAsync(null);
        using var device = db.Device(user);

        foreach (var since in new[] { koboToken, koboToken[LibrarySync.TokenPrefix.Length..] })
        {
            using var refused = await device.GetAsync(
                new Uri($"/v1/users/{user}/changes?since={Uri.EscapeDataString(since)}", UriKind.Relative), TestTimeout.Token);
            var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement;

            Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
            Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
            Assert.True(problem.GetProperty("errors").TryGetProperty("since", out _));
        }
    }

    [Fact]
    public async Task ABooksMetadataIsAnArrayOfOneAndOnlyForTheUsersOwnBooks()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        await db.OwnAsync(other, 50, 50);
        using var kobo = await db.LinkAsync(user);

        var metadata = (await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(2)}/metadata"))!.Value;
        var foreign = (await kobo.JsonAsync(HttpMethod.Get, "/v1/library/3f1c8c7e-2b5a-4d2e-9a51-7b1c0e6d9f10/metadata"))!.Value;

        Assert.Equal(Uuid(2), Assert.Single(metadata.EnumerateArray()).GetProperty("EntitlementId").GetString());
        Assert.Equal(JsonValueKind.Object, foreign.ValueKind);
        Assert.Empty(foreign.EnumerateObject());

        // Another user's book: refused, and archiving it changes nothing.
        var refused = (await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(50)}/metadata", expect: 404))!.Value;
        Assert.Equal(404, refused.GetProperty("status").GetInt32());
        await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/{Uuid(50)}", expect: 404);
        Assert.True(await db.OwnsAsync(other, 50));
    }

    [Fact]
    public async Task AnUnknownSecretIsRefusedOnEveryLibraryCall()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 3);
        using var client = db.Factory.CreateClient();
        var root = "/kobo/" + new string('x', 43);

        using var sync = await client.GetAsync(new Uri(root + "/v1/library/sync", UriKind.Relative), TestTimeout.Token);
        using var archive = await client.DeleteAsync(new Uri($"{root}/v1/library/{Uuid(1)}", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.Unauthorized, sync.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, archive.StatusCode);
        Assert.True(await db.OwnsAsync(user, 1));
    }
}
