using System.Net;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// Where a Kobo e-reader downloads a book: the <c>DownloadUrls</c> of its library sync and metadata
/// (calibre-web's <c>get_metadata</c>: <c>Format</c>, <c>Size</c>, <c>Url</c>, <c>Platform</c>; KEPUB
/// when the book has one) and the store's <c>content_access_book</c> call, read as kobo-book-downloader
/// (<c>Kobo.__GetDownloadInfo</c>, <c>__GetContentKeys</c>) and kobodl read it.
/// </summary>
public sealed class KoboDownloadTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private const string Origin = "https://files.example.org/library/";

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private SyncApiFactory WithOrigin() => db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = Origin });

    private async Task StateFileAsync(long book, string format, long size)
    {
        await using var command = db.DataSource.CreateCommand("INSERT INTO book_files (book_no, format, size) VALUES ($1, $2, $3) ON CONFLICT (book_no, format) DO UPDATE SET size = excluded.size");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = format });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = size });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    private static JsonElement[] DownloadUrlsOf(JsonElement item) =>
        [.. Assert.Single(item.EnumerateObject()).Value.GetProperty("BookMetadata").GetProperty("DownloadUrls").EnumerateArray()];

    [Fact]
    public async Task ABookWithAKepubIsOfferedAsThatKepubWithItsSizeAndNothingElse()
    {
        await StateFileAsync(11, "KEPUB", 1_111);
        await StateFileAsync(11, "EPUB3", 2_222);
        using var service = WithOrigin();
        var user = db.NewUser();
        await db.OwnAsync(user, 11, 11);
        using var kobo = await db.LinkAsync(user, service);

        var (items, _, _) = await kobo.SyncAsync(null);

        var url = Assert.Single(DownloadUrlsOf(Assert.Single(items)));
        Assert.Equal("KEPUB", url.GetProperty("Format").GetString());
        Assert.Equal(1_111, url.GetProperty("Size").GetInt64());
        Assert.Equal("https://files.example.org/library/ebooks/11.kepub.epub", url.GetProperty("Url").GetString());
        Assert.Equal("Generic", url.GetProperty("Platform").GetString());
    }

    [Fact]
    public async Task ABookWithOnlyAnEpubIsOfferedAsEpub3WithItsSizeInSyncAndMetadataAlike()
    {
        await StateFileAsync(12, "EPUB3", 3_333);
        using var service = WithOrigin();
        var user = db.NewUser();
        await db.OwnAsync(user, 12, 12);
        using var kobo = await db.LinkAsync(user, service);

        var (items, _, _) = await kobo.SyncAsync(null);
        var metadata = (await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(12)}/metadata"))!.Value;

        var synced = Assert.Single(DownloadUrlsOf(Assert.Single(items)));
        var read = Assert.Single(Assert.Single(metadata.EnumerateArray()).GetProperty("DownloadUrls").EnumerateArray());
        foreach (var url in new[] { synced, read })
        {
            Assert.Equal("EPUB3", url.GetProperty("Format").GetString());
            Assert.Equal(3_333, url.GetProperty("Size").GetInt64());
            Assert.Equal("https://files.example.org/library/ebooks/12.epub", url.GetProperty("Url").GetString());
        }
    }

    [Fact]
    public async Task ABookWithoutAStatedFileHasNoDownloadUrlEvenWithAnOrigin()
    {
        using var service = WithOrigin();
        var user = db.NewUser();
        await db.OwnAsync(user, 13, 13);
        using var kobo = await db.LinkAsync(user, service);

        var (items, _, _) = await kobo.SyncAsync(null);

        Assert.Empty(DownloadUrlsOf(Assert.Single(items)));
    }

    [Fact]
    public async Task TheContentAccessCallAnswersTheDownloadAsTheStoreClientsReadIt()
    {
        await StateFileAsync(14, "KEPUB", 4_444);
        using var service = WithOrigin();
        var user = db.NewUser();
        await db.OwnAsync(user, 14, 14);
        using var kobo = await db.LinkAsync(user, service);
        var resources = (await kobo.JsonAsync(HttpMethod.Get, "/v1/initialization"))!.Value.GetProperty("Resources");

        // kobo-book-downloader: content_access_book with {ProductId} replaced, DisplayProfile as a parameter.
        var access = new Uri(resources.GetProperty("content_access_book").GetString()!.Replace("{ProductId}", Uuid(14), StringComparison.Ordinal));
        using var response = await kobo.Client.GetAsync(new Uri(access.AbsolutePath + "?DisplayProfile=Android", UriKind.Relative), TestTimeout.Token);
        var answer = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement;

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        // __GetContentKeys: Name -> Value of each ContentKeys item; none for a file without DRM.
        Assert.Empty(answer.GetProperty("ContentKeys").EnumerateArray());
        // __GetDownloadInfo: the first ContentUrls item whose DRMType is KDRM or SignedNoDrm and whose
        // UrlFormat is EPUB3 or KEPUB; its DownloadUrl, with DRM when the type is KDRM.
        var chosen = answer.GetProperty("ContentUrls").EnumerateArray().First(u =>
            u.GetProperty("DRMType").GetString() is "KDRM" or "SignedNoDrm" && u.GetProperty("UrlFormat").GetString() is "EPUB3" or "KEPUB");
        Assert.Equal("https://files.example.org/library/ebooks/14.kepub.epub", chosen.GetProperty("DownloadUrl").GetString());
        Assert.NotEqual("KDRM", chosen.GetProperty("DRMType").GetString());
        Assert.Equal("KEPUB", chosen.GetProperty("UrlFormat").GetString());
        Assert.Equal(4_444, chosen.GetProperty("Size").GetInt64());
        // kobodl: DrmType or DRMType outside KDRM and AdobeDrm is no DRM; the URL is DownloadUrl or Url.
        Assert.DoesNotContain(chosen.GetProperty("DRMType").GetString(), new[] { "KDRM", "AdobeDrm" });
        Assert.False(answer.TryGetProperty("DownloadUrls", out _)); // kobodl would read that list instead
    }

    [Fact]
    public async Task TheContentAccessOfAnArchivedBookHasNoUrlsAsTheStoreAnswersOne()
    {
        await StateFileAsync(15, "EPUB3", 5_555);
        using var service = WithOrigin();
        var user = db.NewUser();
        await db.OwnAsync(user, 15, 15);
        using var kobo = await db.LinkAsync(user, service);
        using (var archived = await kobo.SendAsync(HttpMethod.Delete, $"/v1/library/{Uuid(15)}"))
        {
            Assert.Equal(HttpStatusCode.NoContent, archived.StatusCode);
        }

        var answer = (await kobo.JsonAsync(HttpMethod.Get, $"/v1/products/books/{Uuid(15)}/access?DisplayProfile=Android"))!.Value;

        Assert.Empty(answer.GetProperty("ContentUrls").EnumerateArray());
        Assert.Empty(answer.GetProperty("ContentKeys").EnumerateArray());
    }

    [Theory]
    [InlineData("unowned")]
    [InlineData("store book")]
    [InlineData("not a uuid")]
    public async Task TheContentAccessOfABookNotInTheLibraryIsNotFound(string which)
    {
        await StateFileAsync(16, "EPUB3", 6_666);
        using var service = WithOrigin();
        var user = db.NewUser();
        using var kobo = await db.LinkAsync(user, service);
        var product = which switch
        {
            "unowned" => Uuid(16),
            "store book" => "2a8bd6a2-a1b1-4b59-8d2b-7f3c1c9a0e11",
            _ => "not-a-uuid",
        };

        using var response = await kobo.SendAsync(HttpMethod.Get, $"/v1/products/books/{product}/access?DisplayProfile=Android");

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task WithoutAnOriginTheContentAccessHasNoUrls()
    {
        await StateFileAsync(17, "EPUB3", 7_777);
        var user = db.NewUser();
        await db.OwnAsync(user, 17, 17);
        using var kobo = await db.LinkAsync(user);

        var answer = (await kobo.JsonAsync(HttpMethod.Get, $"/v1/products/books/{Uuid(17)}/access"))!.Value;

        Assert.Empty(answer.GetProperty("ContentUrls").EnumerateArray());
        Assert.Empty(answer.GetProperty("ContentKeys").EnumerateArray());
    }
}
