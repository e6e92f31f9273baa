using System.Buffers.Binary;
using System.IO.Compression;
using System.Net;
using System.Text;
using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// The demo content origin: with <c>dotnet run</c> alone (the embedded server and the demo seed), a
/// linked e-reader downloads each book of its library from the URL its sync names, of the size it
/// states, and sees a cover; the EPUB is one a reader opens (the container's rules: <c>mimetype</c>
/// first and stored); and nothing of it exists in a production configuration.
/// </summary>
public sealed class KoboDemoContentTests(DemoContentService demo) : IClassFixture<DemoContentService>
{
    private static readonly List<DemoBook> Books = DemoRows.GenerateBooks();

    [Fact]
    public void TheDemoEpubIsAZipWhoseMimetypeEntryIsFirstAndStoredAndWhoseChapterNamesTheBook()
    {
        var book = Books[4];
        var epub = DemoContentFiles.EpubOf(book);

        // The EPUB container rule readers check: a local header at 0, method 0 (stored), no extra field,
        // the name "mimetype" at byte 30 and its content right after it.
        Assert.Equal(0x04034b50u, BinaryPrimitives.ReadUInt32LittleEndian(epub));
        Assert.Equal(0, BinaryPrimitives.ReadUInt16LittleEndian(epub.AsSpan(8)));
        Assert.Equal(8, BinaryPrimitives.ReadUInt16LittleEndian(epub.AsSpan(26)));
        Assert.Equal(0, BinaryPrimitives.ReadUInt16LittleEndian(epub.AsSpan(28)));
        Assert.Equal("mimetypeapplication/epub+zip", Encoding.ASCII.GetString(epub, 30, 28));

        using var zip = new ZipArchive(new MemoryStream(epub), ZipArchiveMode.Read);
        Assert.Equal("mimetype", zip.Entries[0].FullName);
        var container = Text(zip, "META-INF/container.xml");
        Assert.Contains("full-path=\"OEBPS/content.opf\"", container, StringComparison.Ordinal);
        var package = Text(zip, "OEBPS/content.opf");
        Assert.Contains($"<dc:title>{book.Title}</dc:title>", package, StringComparison.Ordinal);
        Assert.Contains($"<dc:creator>{book.Author}</dc:creator>", package, StringComparison.Ordinal);
        Assert.Contains("properties=\"nav\"", package, StringComparison.Ordinal);
        Assert.NotNull(zip.GetEntry("OEBPS/nav.xhtml"));
        var chapter = Text(zip, "OEBPS/chapter.xhtml");
        Assert.Contains(book.Title, chapter, StringComparison.Ordinal);
        Assert.Contains(book.Author, chapter, StringComparison.Ordinal);
        Assert.Equal(epub, DemoContentFiles.EpubOf(book)); // the same bytes every time
    }

    [Fact]
    public async Task TheDemoSeederStatesEachDemoBookAsAnEpub3OfTheSizeTheDemoOriginServes()
    {
        var stated = new Dictionary<long, (string Format, long Size)>();
        await using (var command = demo.DataSource.CreateCommand("SELECT book_no, format, size FROM book_files"))
        await using (var reader = await command.ExecuteReaderAsync(TestTimeout.Token))
        {
            while (await reader.ReadAsync(TestTimeout.Token))
            {
                stated.Add(reader.GetInt64(0), (reader.GetString(1), reader.GetInt64(2)));
            }
        }

        Assert.Equal(DemoData.BookCount, stated.Count);
        foreach (var book in Books)
        {
            Assert.Equal(("EPUB3", (long)DemoContentFiles.EpubOf(book).Length), stated[book.BookNo]);
        }
    }

    [Fact]
    public async Task ADemoStoreSeededBeforeBookFilesWereKeptGetsThemAtTheNextStartAndAnEditedCatalogueDoesNot()
    {
        await ExecuteAsync("DELETE FROM book_files");
        await ExecuteAsync("UPDATE books SET title = title || ' (edited)' WHERE book_no = 7");
        await new DemoSeeder(demo.DataSource).SeedAsync(TestTimeout.Token);
        var afterEdit = await ExecuteAsync("SELECT count(*) FROM book_files");
        await ExecuteAsync("UPDATE books SET title = left(title, -9) WHERE book_no = 7");

        var result = await new DemoSeeder(demo.DataSource).SeedAsync(TestTimeout.Token);

        Assert.Equal(0L, afterEdit);
        Assert.False(result.Seeded);
        Assert.Equal((long)DemoData.BookCount, await ExecuteAsync("SELECT count(*) FROM book_files"));
        Assert.Equal(Books[6].Title, await ExecuteAsync("SELECT title FROM books WHERE book_no = 7"));
    }

    [Theory]
    [InlineData(null, null, null, true)] // dotnet run: the embedded server, seeded
    [InlineData("Host=db.internal;Database=kobo_sync", null, null, false)] // production
    [InlineData(null, "false", null, false)]
    [InlineData(null, null, "false", false)]
    [InlineData("Host=db.internal;Database=kobo_sync", null, "true", true)]
    public void TheDemoOriginIsOnByDefaultOnlyInTheDemoRun(string? connectionString, string? seed, string? demoContent, bool on)
    {
        // Development, as under dotnet run: the only environment where an empty connection string is the embedded server by default.
        var builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions { EnvironmentName = "Development" });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
            {
                ["Storage:ConnectionString"] = connectionString,
                ["Demo:Seed"] = seed,
                ["Kobo:DemoContent"] = demoContent,
            }.Where(setting => setting.Value is not null)); // unset, as in a configuration without the key
        builder.AddStorage();
        builder.AddKobo();
        using var services = builder.Services.BuildServiceProvider();

        Assert.Equal(on, services.GetRequiredService<IOptions<KoboOptions>>().Value.DemoContent);
    }

    [Fact]
    public async Task ALinkedEReaderDownloadsItsBooksFromTheUrlsItsSyncNamesAndSeesTheirCovers()
    {
        const long user = 12; // owns demo books 5 and 56 among others
        using var phone = demo.Factory.CreateClient().WithToken(TestTokens.For(user, "phone"));
        var endpoint = await phone.LinkAsync(user);
        using var kobo = new KoboReader(demo.Factory.CreateClient(new WebApplicationFactoryClientOptions { AllowAutoRedirect = false }), endpoint);
        using var anyone = demo.Factory.CreateClient(); // the device sends no credentials to the origin
        var resources = (await kobo.JsonAsync(HttpMethod.Get, "/v1/initialization"))!.Value.GetProperty("Resources");

        var (items, _, _) = await kobo.SyncAsync(null);

        var entitlements = items.Where(i => i.TryGetProperty("NewEntitlement", out _)).Select(i => i.GetProperty("NewEntitlement")).ToList();
        Assert.Contains(entitlements, e => e.GetProperty("BookMetadata").GetProperty("Title").GetString() == Books[4].Title);
        foreach (var entitlement in entitlements.Take(3))
        {
            var metadata = entitlement.GetProperty("BookMetadata");
            var download = Assert.Single(metadata.GetProperty("DownloadUrls").EnumerateArray());
            var url = new Uri(download.GetProperty("Url").GetString()!);
            Assert.Equal("EPUB3", download.GetProperty("Format").GetString());
            Assert.Equal(new Uri(endpoint).GetLeftPart(UriPartial.Authority), url.GetLeftPart(UriPartial.Authority));
            Assert.Matches("^/demo-content/ebooks/[0-9]+\\.epub$", url.AbsolutePath);

            using var file = await anyone.GetAsync(new Uri(url.AbsolutePath, UriKind.Relative), TestTimeout.Token);
            var bytes = await file.Content.ReadAsByteArrayAsync(TestTimeout.Token);
            Assert.Equal(HttpStatusCode.OK, file.StatusCode);
            Assert.Equal("application/epub+zip", file.Content.Headers.ContentType?.MediaType);
            Assert.Equal(download.GetProperty("Size").GetInt64(), bytes.Length);
            using var zip = new ZipArchive(new MemoryStream(bytes), ZipArchiveMode.Read);
            Assert.Equal("mimetype", zip.Entries[0].FullName);
            Assert.Contains(metadata.GetProperty("Title").GetString()!, Text(zip, "OEBPS/chapter.xhtml"), StringComparison.Ordinal);

            var cover = new Uri(resources.GetProperty("image_url_template").GetString()!
                .Replace("{ImageId}", metadata.GetProperty("CoverImageId").GetString(), StringComparison.Ordinal)
                .Replace("{Width}", "355", StringComparison.Ordinal).Replace("{Height}", "530", StringComparison.Ordinal));
            using var redirect = await kobo.Client.GetAsync(new Uri(cover.AbsolutePath, UriKind.Relative), TestTimeout.Token);
            Assert.Equal(HttpStatusCode.TemporaryRedirect, redirect.StatusCode);
            var image = redirect.Headers.Location!;
            Assert.Equal(url.AbsolutePath.Replace("/ebooks/", "/covers/", StringComparison.Ordinal).Replace(".epub", ".jpg", StringComparison.Ordinal), image.AbsolutePath);
            using var jpeg = await anyone.GetAsync(new Uri(image.AbsolutePath, UriKind.Relative), TestTimeout.Token);
            var jpegBytes = await jpeg.Content.ReadAsByteArrayAsync(TestTimeout.Token);
            Assert.Equal(HttpStatusCode.OK, jpeg.StatusCode);
            Assert.Equal("image/jpeg", jpeg.Content.Headers.ContentType?.MediaType);
            Assert.Equal([0xFF, 0xD8, 0xFF], jpegBytes[..3]);
        }
    }

    [Theory]
    [InlineData("/demo-content/ebooks/0.epub")]
    [InlineData("/demo-content/ebooks/2001.epub")]
    [InlineData("/demo-content/ebooks/1.kepub.epub")]
    [InlineData("/demo-content/ebooks/abc.epub")]
    [InlineData("/demo-content/ebooks/-1.epub")]
    [InlineData("/demo-content/ebooks/99999999999999999999.epub")]
    [InlineData("/demo-content/ebooks/01.epub")]
    [InlineData("/demo-content/ebooks/1.pdf")]
    [InlineData("/demo-content/covers/2001.jpg")]
    [InlineData("/demo-content/covers/1.png")]
    public async Task TheDemoOriginServesTheDemoBooksOnly(string path)
    {
        using var anyone = demo.Factory.CreateClient();
        using (var known = await anyone.GetAsync(new Uri("/demo-content/ebooks/1.epub", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.OK, known.StatusCode);
        }

        using var response = await anyone.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task TheDemoOriginDoesNotExistWhenItIsOff()
    {
        var settings = TestTokens.ServiceSettings(demo.ConnectionString);
        settings["Kobo:DemoContent"] = "false";
        await using var production = new SyncApiFactory(settings);
        using var off = production.CreateClient();
        using var on = demo.Factory.CreateClient();

        using var served = await on.GetAsync(new Uri("/demo-content/ebooks/1.epub", UriKind.Relative), TestTimeout.Token);
        using var absent = await off.GetAsync(new Uri("/demo-content/ebooks/1.epub", UriKind.Relative), TestTimeout.Token);
        using var noCover = await off.GetAsync(new Uri("/demo-content/covers/1.jpg", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, served.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, absent.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, noCover.StatusCode);
    }

    private async Task<object?> ExecuteAsync(string sql)
    {
        await using var command = demo.DataSource.CreateCommand(sql);
        return await command.ExecuteScalarAsync(TestTimeout.Token);
    }

    private static string Text(ZipArchive zip, string name)
    {
        using var reader = new StreamReader(zip.GetEntry(name)!.Open(), Encoding.UTF8);
        return reader.ReadToEnd();
    }
}
