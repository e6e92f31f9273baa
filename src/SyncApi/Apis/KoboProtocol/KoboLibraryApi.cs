using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The device's library: <c>GET v1/library/sync</c> (a delta pull of ownership and reading state
/// changes, <c>NewEntitlement</c> / <c>ChangedEntitlement</c> / <c>ChangedReadingState</c> items and the tags
/// (<c>NewTag</c> / <c>ChangedTag</c> / <c>DeletedTag</c>, <see cref="KoboTags"/>) in pages of 100, the position in
/// <c>x-kobo-synctoken</c>, <c>x-kobo-sync: continue</c> while more remains), a book's metadata, and
/// <c>DELETE v1/library/{uuid}</c> (archiving: the user's ownership of the book is removed, as a
/// removal through any other device would be, and the next sync carries it as a removed entitlement).
/// A UUID that is not one of this service's books is answered as calibre-web answers an unknown book
/// without its store proxy (an empty object); one of this service's books that the user does not own is refused (404).
/// </summary>
internal static class KoboLibraryApi
{
    public const string SyncTokenHeader = "x-kobo-synctoken";
    public const string SyncHeader = "x-kobo-sync";

    public static RouteGroupBuilder MapKoboLibrary(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/v1/library/sync", Sync).WithName("KoboLibrarySync");
        kobo.MapGet("/v1/library/{uuid}/metadata", Metadata).WithName("KoboBookMetadata");
        kobo.MapDelete("/v1/library/{uuid}", Archive).WithName("KoboArchiveBook");
        return kobo;
    }

    private static async Task<IResult> Sync(
        HttpContext context, LibrarySync library, IDevicePositions positions, TimeProvider clock,
        IOptions<KoboOptions> options, CancellationToken cancellationToken)
    {
        var caller = context.Caller();
        string? token = context.Request.Headers[SyncTokenHeader];
        var page = await library.PullAsync(caller, token, cancellationToken);
        if (page.PageOfSync == 1)
        {
            // A linked e-reader's sync counts as its linking device's (it stays among the user's recently
            // seen devices, and is made known again if it was dropped), written behind as any pull.
            positions.Record(caller.User, caller.DeviceId, null);
        }

        var now = KoboJson.Timestamp(clock.GetUtcNow());
        var contentBase = KoboContentOrigin.BaseFor(options.Value, context);
        var body = KoboJson.Array(json =>
        {
            foreach (var book in page.Books)
            {
                KoboEntitlements.WriteSyncItem(json, book, now, contentBase);
            }

            foreach (var changed in page.ReadingStates)
            {
                json.WriteStartObject();
                json.WriteStartObject("ChangedReadingState");
                json.WritePropertyName("ReadingState");
                KoboReadingStates.Write(json, changed.State.Book, changed.State, changed.AcquiredAt);
                json.WriteEndObject();
                json.WriteEndObject();
            }

            foreach (var collection in page.Collections)
            {
                KoboTags.WriteSyncItem(json, collection, page.CollectionsSeenThrough);
            }
        });

        context.Response.Headers[SyncTokenHeader] = page.SyncToken;
        if (page.HasMore)
        {
            context.Response.Headers[SyncHeader] = "continue";
        }

        return body;
    }

    private static async Task<IResult> Metadata(
        string uuid, HttpContext context, ILibraryStore store, IOptions<KoboOptions> options, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var bookNo))
        {
            return KoboJson.Empty();
        }

        var book = await OwnedAsync(context.Caller(), bookNo, store, cancellationToken);
        return KoboJson.Array(json => KoboEntitlements.WriteMetadata(json, book, KoboContentOrigin.BaseFor(options.Value, context)));
    }

    private static async Task<IResult> Archive(
        string uuid, HttpContext context, ILibraryStore store, ISyncStore sync, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var bookNo))
        {
            return KoboJson.Empty();
        }

        // Archiving twice (a retry) is done: only a book the user never had is not found.
        var caller = context.Caller();
        var book = await store.ReadBookAsync(caller.User, bookNo, cancellationToken) ?? throw NotInLibrary(bookNo);
        if (!book.Removed)
        {
            await sync.SetOwnershipAsync(caller.User, bookNo, owned: false, cancellationToken);
        }

        return TypedResults.NoContent();
    }

    /// <summary>The caller's own book; a book of this service's catalogue they do not own is not found.</summary>
    internal static async Task<LibraryBook> OwnedAsync(
        DeviceCaller caller, BookNo book, ILibraryStore store, CancellationToken cancellationToken) =>
        await store.ReadBookAsync(caller.User, book, cancellationToken) is { Removed: false } owned
            ? owned
            : throw NotInLibrary(book);

    private static ResourceNotFoundException NotInLibrary(BookNo book) =>
        new($"Book {BookUuid.Format(book)} is not in this user's library.");
}
