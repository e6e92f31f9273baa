#if DEVELOPMENT_SERVER
using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The demo content origin, mapped only when <c>Kobo:DemoContent</c> is on (by default only in the demo
/// run: the embedded server with the demo seed): <c>GET /demo-content/ebooks/{bookNo}.epub</c> and
/// <c>GET /demo-content/covers/{bookNo}.jpg</c> for the demo catalogue's books, following the content
/// origin's contract (<see cref="KoboContentOrigin"/>). Anonymous, as a file server behind a download URL
/// is (the device adds no credentials to it): static demo content only, a few kilobytes made per request
/// with no store read; any other name is 404.
/// </summary>
internal static class KoboDemoContentApi
{
    private const string EpubSuffix = ".epub";
    private const string CoverSuffix = ".jpg";

    public static IEndpointRouteBuilder MapKoboDemoContent(this IEndpointRouteBuilder app)
    {
        var demo = app.MapGroup(KoboContentOrigin.DemoPath)
            .AllowAnonymous()
            .WithTags("Kobo demo content")
            .ExcludeFromDescription();
        demo.MapGet("/ebooks/{file}", Book).WithName("KoboDemoBook");
        demo.MapGet("/covers/{file}", Cover).WithName("KoboDemoCover");
        return app;
    }

    private static IResult Book(string file)
    {
        // The demo catalogue states an EPUB3 for each book and no KEPUB: {bookNo}.kepub.epub is not found.
        var epub = file.EndsWith(EpubSuffix, StringComparison.Ordinal) ? DemoContentFiles.Epub(file[..^EpubSuffix.Length]) : null;
        return epub is not null
            ? TypedResults.File(epub, DemoEpub.MediaType, file)
            : throw NotADemoFile();
    }

    private static IResult Cover(string file) =>
        file.EndsWith(CoverSuffix, StringComparison.Ordinal) && DemoContentFiles.IsDemoBook(file[..^CoverSuffix.Length])
            ? TypedResults.File(DemoContentFiles.Cover, DemoContentFiles.CoverMediaType)
            : throw NotADemoFile();

    private static ResourceNotFoundException NotADemoFile() =>
        new("The demo content origin serves /ebooks/{bookNo}.epub and /covers/{bookNo}.jpg for the demo catalogue's books only.");
}
#endif
