using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;

namespace Kobo.Sync.SyncApi.Infrastructure.Kobo;

/// <summary>
/// The content origin's contract: where it serves a book's file per format and a book's cover, under
/// its base (<c>Kobo:ContentBaseUrl</c>). The origin is asked for
/// nothing by this service: the formats and sizes come from the catalogue (<c>book_files</c>), and the
/// device fetches the files and covers from the origin itself.
/// </summary>
public static class KoboContentOrigin
{
    /// <summary>The content origin for this request: <c>Kobo:ContentBaseUrl</c>; null when it is not set, and then nothing can be downloaded.</summary>
    public static Uri? BaseFor(KoboOptions options, HttpContext context) => options.ContentBase;

    /// <summary><c>{base}/ebooks/{bookNo}.kepub.epub</c> for a KEPUB, <c>{base}/ebooks/{bookNo}.epub</c> for an EPUB3.</summary>
    public static string FileUrl(Uri contentBase, BookNo book, string format) =>
        Root(contentBase) + "/ebooks/" + book + (format == BookFile.Kepub ? ".kepub.epub" : ".epub");

    /// <summary><c>{base}/covers/{bookNo}.jpg</c>: one image per book, whatever size the device asks for (it scales it).</summary>
    public static string CoverUrl(Uri contentBase, BookNo book) => Root(contentBase) + "/covers/" + book + ".jpg";

    private static string Root(Uri contentBase) => contentBase.GetLeftPart(UriPartial.Path).TrimEnd('/');
}
