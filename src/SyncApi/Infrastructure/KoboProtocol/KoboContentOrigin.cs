using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;

namespace Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

/// <summary>
/// The content origin's contract: where it serves a book's file per format and a book's cover, under
/// its base (<c>Kobo:ContentBaseUrl</c>, or this service's own demo origin). The origin is asked for
/// nothing by this service: the formats and sizes come from the catalogue (<c>book_files</c>), and the
/// device fetches the files and covers from the origin itself.
/// </summary>
public static class KoboContentOrigin
{
    /// <summary>Where the demo origin lives under the service's base (<see cref="KoboOptions.DemoContent"/>).</summary>
    public const string DemoPath = "/demo-content";

    /// <summary>
    /// The content origin for this request: <c>Kobo:ContentBaseUrl</c> when set, else the service's own
    /// base (<see cref="KoboUrls.Base"/>, never the Host header) plus <see cref="DemoPath"/> when the demo
    /// origin is on; null when there is none, and then nothing can be downloaded.
    /// </summary>
    public static Uri? BaseFor(KoboOptions options, HttpContext context) =>
        options.ContentBase
        ?? (options.DemoContent == true ? new Uri(KoboUrls.Base(options, context) + DemoPath, UriKind.Absolute) : null);

    /// <summary><c>{base}/ebooks/{bookNo}.kepub.epub</c> for a KEPUB, <c>{base}/ebooks/{bookNo}.epub</c> for an EPUB3.</summary>
    public static string FileUrl(Uri contentBase, BookNo book, string format) =>
        Root(contentBase) + "/ebooks/" + book + (format == BookFile.Kepub ? ".kepub.epub" : ".epub");

    /// <summary><c>{base}/covers/{bookNo}.jpg</c>: one image per book, whatever size the device asks for (it scales it).</summary>
    public static string CoverUrl(Uri contentBase, BookNo book) => Root(contentBase) + "/covers/" + book + ".jpg";

    private static string Root(Uri contentBase) => contentBase.GetLeftPart(UriPartial.Path).TrimEnd('/');
}
