using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// A book's reading state over REST: read it, and put any of its groups (position, status, statistics).
/// Both call <see cref="ReadingStateSync"/>, shared with gRPC and the Kobo protocol.
/// </summary>
internal static class ReadingStateApi
{
    public static RouteGroupBuilder MapReadingStateApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/books/{bookNo}/reading-state")
            .RequireAuthorization()
            .WithTags("Reading state")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapGet(string.Empty, GetReadingState).WithName("GetReadingState");
        group.MapPut(string.Empty, PutReadingState).WithName("PutReadingState");
        return group;
    }

    // Written with SyncJsonContext's own options, so groups never written are left out rather than sent as null.
    private static async Task<JsonHttpResult<ReadingState>> GetReadingState(
        string userNo, string bookNo, HttpContext context, ReadingStateSync states, CancellationToken cancellationToken)
    {
        var state = await states.GetAsync(context.Caller(), RequestIds.User(userNo), RequestIds.Book(bookNo), cancellationToken);
        return TypedResults.Json(state, SyncJsonContext.Default.ReadingState);
    }

    private static async Task<JsonHttpResult<ReadingStatePutResponse>> PutReadingState(
        string userNo, string bookNo, ReadingStatePutJson? body, HttpContext context, ReadingStateSync states,
        CancellationToken cancellationToken)
    {
        var caller = context.Caller();
        var user = RequestIds.User(userNo);
        var book = RequestIds.Book(bookNo);
        var result = await states.PutAsync(caller, user, book, body?.ToDomain(), cancellationToken);
        return TypedResults.Json(
            new ReadingStatePutResponse(result.Results, result.State), SyncJsonContext.Default.ReadingStatePutResponse);
    }
}

/// <summary>The answer to a put: each group the put carried with its result, and the state as stored after it.</summary>
public sealed record ReadingStatePutResponse(ReadingStateResults Results, ReadingState ReadingState);
