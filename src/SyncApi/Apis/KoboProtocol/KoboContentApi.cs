using System.Globalization;
using System.Text.Json.Nodes;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// A book's content as the device and the store's download clients reach it: its cover, at the
/// initialization's <c>image_url_template</c> and <c>image_url_quality_template</c>
/// (<c>/{ImageId}/{Width}/{Height}[/{Quality}]/{IsGreyscale}/image.jpg</c> under the device's root,
/// as calibre-web serves them), redirected (307, as calibre-web and komga redirect a cover they do not
/// hold) to the content origin's cover; and <c>content_access_book</c>
/// (<c>GET v1/products/books/{ProductId}/access</c>), the download URLs in the shape kobo-book-downloader
/// and kobodl read. Neither is ever the catch-all's <c>{}</c>: a cover that is not there is 404, and the
/// device shows its own placeholder.
/// </summary>
internal static class KoboContentApi
{
    /// <summary>The store's DRM type of a file that carries none (kobo-book-downloader downloads it as is).</summary>
    public const string NoDrm = "SignedNoDrm";

    public static RouteGroupBuilder MapKoboContent(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/{imageId}/{width}/{height}/{isGreyscale}/image.jpg", Cover).WithName("KoboCover");
        kobo.MapGet("/{imageId}/{width}/{height}/{quality}/{isGreyscale}/image.jpg", QualityCover).WithName("KoboQualityCover");
        kobo.MapGet("/v1/products/books/{productId}/access", Access).WithName("KoboContentAccess");
        return kobo;
    }

    private static Task<IResult> QualityCover(
        string imageId, string width, string height, string quality, string isGreyscale,
        HttpContext context, ILibraryStore store, IOptions<KoboOptions> options, CancellationToken cancellationToken) =>
        IsNumber(quality)
            ? Cover(imageId, width, height, isGreyscale, context, store, options, cancellationToken)
            : Task.FromException<IResult>(NotACover());

    /// <summary>
    /// A cover of a book in the caller's library (owned or archived: the device keeps showing an archived
    /// book's cover) redirects to the origin's cover. Not found, before any read: an ImageId that is no
    /// book of this service, a width, height or greyscale flag that is not what the templates produce (a
    /// path that names no cover, as an unknown ImageId does), or no content origin. Not found after the
    /// read: a book the caller never had.
    /// </summary>
    private static async Task<IResult> Cover(
        string imageId, string width, string height, string isGreyscale,
        HttpContext context, ILibraryStore store, IOptions<KoboOptions> options, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(imageId, out var book) || !IsNumber(width) || !IsNumber(height) || !bool.TryParse(isGreyscale, out _))
        {
            throw NotACover();
        }

        var origin = KoboContentOrigin.BaseFor(options.Value, context)
            ?? throw new ResourceNotFoundException("No content origin is configured (Kobo:ContentBaseUrl): this service holds no covers.");
        _ = await store.ReadBookAsync(context.Caller().User, book, cancellationToken)
            ?? throw new ResourceNotFoundException($"Book {BookUuid.Format(book)} is not in this user's library.");
        return TypedResults.Redirect(KoboContentOrigin.CoverUrl(origin, book), permanent: false, preserveMethod: true);
    }

    /// <summary>
    /// The store's content access: <c>ContentUrls</c> (the file's <c>DownloadUrl</c>, <c>UrlFormat</c>,
    /// <c>DRMType</c>, <c>Size</c>, <c>Platform</c>) and <c>ContentKeys</c> (none: the files carry no DRM).
    /// <c>DisplayProfile</c> is not read: every profile gets the same file. An archived book, as the store
    /// answers one, and a book without a file or an origin have both lists empty; a UUID that is no book of
    /// this service or a book the caller never had is 404.
    /// </summary>
    private static async Task<IResult> Access(
        string productId, HttpContext context, ILibraryStore store, IOptions<KoboOptions> options, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(productId, out var bookNo))
        {
            throw new ResourceNotFoundException("The product id is not a book of this service.");
        }

        var book = await store.ReadBookAsync(context.Caller().User, bookNo, cancellationToken)
            ?? throw new ResourceNotFoundException($"Book {BookUuid.Format(bookNo)} is not in this user's library.");
        var download = book.Removed ? null : KoboEntitlements.DownloadUrl(KoboContentOrigin.BaseFor(options.Value, context), book);
        var urls = new JsonArray();
        if (download is not null)
        {
            urls.Add(new JsonObject
            {
                ["DRMType"] = NoDrm,
                ["DownloadUrl"] = download.Url,
                ["Platform"] = "Generic",
                ["Size"] = download.Size,
                ["UrlFormat"] = download.Format,
            });
        }

        return KoboJson.Of(new JsonObject { ["ContentKeys"] = new JsonArray(), ["ContentUrls"] = urls });
    }

    /// <summary>Digits only, as the templates' sizes and quality are: no sign, no spaces, no decimals.</summary>
    private static bool IsNumber(string value) =>
        value.Length is > 0 and <= 9 && int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out _);

    private static ResourceNotFoundException NotACover() =>
        new(
            "No cover is served at this path: the image id is not a book of this service, or the width, height, " +
            "quality or greyscale flag is not what the cover templates produce.");
}
