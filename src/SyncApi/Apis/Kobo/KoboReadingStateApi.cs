using System.Text.Json;
using System.Text.Json.Nodes;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.ReadingStates;

namespace Kobo.Sync.SyncApi.Apis.Kobo;

/// <summary>
/// <c>GET</c>/<c>PUT v1/library/{uuid}/state</c>: the native reading state (<see cref="ReadingStateSync"/>),
/// shared with REST and gRPC, in the Kobo shape (<see cref="KoboReadingStates"/>). A put goes through the
/// same conflict rule: a stale device's position never overwrites a newer one. A UUID that is not one of
/// this service's books is answered as calibre-web answers an unknown book without its store proxy (an
/// empty object); a book the user does not own is refused (404).
/// </summary>
internal static class KoboReadingStateApi
{
    public static RouteGroupBuilder MapKoboReadingState(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/v1/library/{uuid}/state", Get).WithName("KoboGetReadingState");
        kobo.MapPut("/v1/library/{uuid}/state", Put).WithName("KoboPutReadingState");
        return kobo;
    }

    private static async Task<IResult> Get(
        string uuid, HttpContext context, ReadingStateSync states, TimeProvider clock, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var book))
        {
            return KoboJson.Empty();
        }

        var caller = context.Caller();
        var state = await states.GetAsync(caller, caller.User, book, cancellationToken);
        var body = KoboJson.Array(1024, json => KoboReadingStates.Write(json, state, clock.GetUtcNow()));
        return TypedResults.Bytes(body, KoboJson.ContentType);
    }

    private static async Task<IResult> Put(
        string uuid, HttpContext context, ReadingStateSync states, TimeProvider clock, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(uuid, out var book))
        {
            return KoboJson.Empty();
        }

        PushedReadingState? put;
        try
        {
            // Through the body's reader, where the body arrival wait left what it examined.
            using var body = await JsonDocument.ParseAsync(context.Request.BodyReader.AsStream(), cancellationToken: cancellationToken);
            put = KoboReadingStates.Read(body.RootElement, clock.GetUtcNow());
        }
        catch (JsonException error)
        {
            throw new InvalidRequestException("body", $"The body is not JSON: {error.Message}");
        }

        if (put is null)
        {
            throw new InvalidRequestException("ReadingStates", "The body must carry ReadingStates, an array whose first item is the book's reading state.");
        }

        var caller = context.Caller();
        await states.PutAsync(caller, caller.User, book, put, cancellationToken);
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

        return KoboJson.Of(new JsonObject { ["RequestResult"] = "Success", ["UpdateResults"] = new JsonArray(update) });
    }
}
