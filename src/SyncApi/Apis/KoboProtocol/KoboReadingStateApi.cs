using System.Text.Json.Nodes;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// <c>GET</c>/<c>PUT v1/library/{uuid}/state</c>: the native reading state (<see cref="ReadingStateSync"/>),
/// shared with REST and gRPC, in the Kobo shape (<see cref="KoboReadingStates"/>). A put is checked by the
/// native rules before anything is stored, a refusal naming the Kobo field, and goes through the same
/// conflict rule: a stale device's position never overwrites a newer one. A UUID that is not one of this
/// service's books is answered as calibre-web answers an unknown book without its store proxy (an empty
/// object); a book the user does not own is refused (404).
/// </summary>
internal static class KoboReadingStateApi
{
    public static RouteGroupBuilder MapKoboReadingState(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/v1/library/{uuid}/state", Get).WithName("KoboGetReadingState");
        kobo.MapPut("/v1/library/{uuid}/state", Put).WithName("KoboPutReadingState");
        return kobo;
    }

    private static async Task<IResult> Get(string uuid, HttpContext context, ILibraryStore store, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var bookNo))
        {
            return KoboJson.Empty();
        }

        // The book and its state in one read: the state is dated from the book's arrival (Created).
        var book = await KoboLibraryApi.OwnedAsync(context.Caller(), bookNo, store, cancellationToken);
        return KoboJson.Array(json => KoboReadingStates.Write(json, book.Book, book.ReadingState, book.AcquiredAt));
    }

    private static async Task<IResult> Put(
        string uuid, HttpContext context, ReadingStateSync states,
        SyncSettings settings, TimeProvider clock, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var book))
        {
            return KoboJson.Empty();
        }

        var now = clock.GetUtcNow();
        PushedReadingState put;
        using (var body = await KoboJson.ReadBodyAsync(context.Request, cancellationToken))
        {
            put = KoboReadingStates.Read(body.RootElement, now);
        }

        KoboReadingStates.Check(put, now, settings.MaxClockSkew);
        var caller = context.Caller();
        var result = await states.PutAsync(caller, caller.User, book, put, cancellationToken);
        var update = new JsonObject { ["EntitlementId"] = BookUuid.Format(book) };
        if (put.Position is not null)
        {
            update["CurrentBookmarkResult"] = new JsonObject { ["Result"] = "Success" };
        }

        if (put.Statistics is not null)
        {
            update["StatisticsResult"] = new JsonObject { ["Result"] = "Success" };
        }

        if (put.Status is not null)
        {
            update["StatusInfoResult"] = new JsonObject { ["Result"] = "Success" };
        }

        // The state's times after the put, the ones the next GET and sync answer (calibre-web #3601), so
        // the device is never handed a time it has not seen: a device's own write answers its own time.
        if (result.State.ModifiedAt is { } modified)
        {
            var at = KoboJson.Timestamp(modified);
            update["LastModified"] = at;
            update["PriorityTimestamp"] = at;
        }

        return KoboJson.Of(new JsonObject { ["RequestResult"] = "Success", ["UpdateResults"] = new JsonArray(update) });
    }
}
