using System.Net;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Mvc.Testing;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// A Kobo e-reader's covers: the initialization's <c>image_url_template</c> and
/// <c>image_url_quality_template</c> (calibre-web's, at the device's root) lead, for a book in the
/// user's library, to a redirect to the content origin's cover (307, as calibre-web and komga redirect a
/// cover they do not hold); anything else is 404, never the catch-all's <c>200 {}</c>.
/// </summary>
public sealed class KoboCoverTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    /// <summary>An e-reader that sees redirects rather than following them.</summary>
    private static async Task<KoboReader> LinkAsync(SyncApiFactory service, long user)
    {
        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        var endpoint = await phone.LinkAsync(user);
        return new KoboReader(service.CreateClient(new WebApplicationFactoryClientOptions { AllowAutoRedirect = false }), endpoint);
    }

    /// <summary>The two cover templates of the device's initialization, filled for <paramref name="imageId"/>, as paths on the test server.</summary>
    private static async Task<string[]> CoverPathsAsync(KoboReader kobo, string imageId)
    {
        var resources = (await kobo.JsonAsync(HttpMethod.Get, "/v1/initialization"))!.Value.GetProperty("Resources");
        return
        [
            .. new[] { "image_url_template", "image_url_quality_template" }.Select(key => new Uri(resources.GetProperty(key).GetString()!
                .Replace("{ImageId}", imageId, StringComparison.Ordinal).Replace("{Width}", "355", StringComparison.Ordinal)
                .Replace("{Height}", "530", StringComparison.Ordinal).Replace("{Quality}", "85", StringComparison.Ordinal)
                .Replace("{IsGreyscale}", "true", StringComparison.Ordinal)).AbsolutePath),
        ];
    }

    private static async Task AssertNotFoundAsync(HttpClient client, string path)
    {
        using var response = await client.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.NotFound, $"GET {path}: {(int)response.StatusCode} {body}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.False(string.IsNullOrEmpty(JsonDocument.Parse(body).RootElement.GetProperty("detail").GetString()));
    }

    [Fact]
    public async Task BothCoverTemplatesOfAnOwnedBookRedirectToTheOriginsCover()
    {
        using var service = db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = "https://files.example.org/library/" });
        var user = db.NewUser();
        await db.OwnAsync(user, 21, 21);
        using var kobo = await LinkAsync(service, user);

        foreach (var path in await CoverPathsAsync(kobo, Uuid(21)))
        {
            Assert.StartsWith(kobo.Root + "/" + Uuid(21) + "/355/530/", path, StringComparison.Ordinal);
            using var response = await kobo.Client.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);

            Assert.Equal(HttpStatusCode.TemporaryRedirect, response.StatusCode);
            Assert.Equal(new Uri("https://files.example.org/library/covers/21.jpg"), response.Headers.Location);
        }
    }

    [Fact]
    public async Task AnArchivedBookKeepsItsCover()
    {
        using var service = db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = "https://files.example.org" });
        var user = db.NewUser();
        await db.OwnAsync(user, 22, 22);
        using var kobo = await LinkAsync(service, user);
        using (var archived = await kobo.SendAsync(HttpMethod.Delete, $"/v1/library/{Uuid(22)}"))
        {
            Assert.Equal(HttpStatusCode.NoContent, archived.StatusCode);
        }

        using var response = await kobo.SendAsync(HttpMethod.Get, $"/{Uuid(22)}/600/800/false/image.jpg");

        Assert.Equal(HttpStatusCode.TemporaryRedirect, response.StatusCode);
        Assert.Equal(new Uri("https://files.example.org/covers/22.jpg"), response.Headers.Location);
    }

    [Fact]
    public async Task ACoverOfABookNotInTheLibraryOrNotOfThisServiceIsNotFound()
    {
        using var service = db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = "https://files.example.org" });
        var user = db.NewUser();
        await db.OwnAsync(user, 23, 23);
        using var kobo = await LinkAsync(service, user);

        await AssertNotFoundAsync(kobo.Client, kobo.Root + $"/{Uuid(24)}/355/530/false/image.jpg"); // a book of the catalogue, not owned
        await AssertNotFoundAsync(kobo.Client, kobo.Root + "/2a8bd6a2-a1b1-4b59-8d2b-7f3c1c9a0e11/355/530/false/image.jpg"); // a store book's
        await AssertNotFoundAsync(kobo.Client, kobo.Root + "/not-a-book/355/530/85/false/image.jpg");
    }

    [Fact]
    public async Task WithoutAContentOriginEveryCoverIsNotFound()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 25, 25);
        using var kobo = await LinkAsync(db.Factory, user);

        foreach (var path in await CoverPathsAsync(kobo, Uuid(25)))
        {
            await AssertNotFoundAsync(kobo.Client, path);
        }
    }

    [Theory]
    [InlineData("abc", "530", "false")]
    [InlineData("-1", "530", "false")]
    [InlineData("355", "1.5", "false")]
    [InlineData("355", "5e2", "false")]
    [InlineData("355", "99999999999", "false")]
    [InlineData("355", "530", "maybe")]
    [InlineData("355", "530", "85/high")]
    [InlineData("355", "530", "high/false")]
    public async Task ACoverPathWhoseSizesOrFlagsAreNotTheTemplatesIsNotFound(string width, string height, string rest)
    {
        using var service = db.ServiceWith(new() { ["Kobo:ContentBaseUrl"] = "https://files.example.org" });
        var user = db.NewUser();
        await db.OwnAsync(user, 26, 26);
        using var kobo = await LinkAsync(service, user);

        await AssertNotFoundAsync(kobo.Client, kobo.Root + $"/{Uuid(26)}/{width}/{height}/{rest}/image.jpg");
    }
}
