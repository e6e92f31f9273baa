using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// The three hot device reads over REST. Ids and query values arrive as text and are checked by
/// <see cref="RequestIds"/> and <see cref="DeviceReads"/>, so every bad value gets a precise 400.
/// </summary>
internal static class UsersApi
{
    public static RouteGroupBuilder MapUsersApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users")
            .RequireAuthorization()
            .WithTags("Users")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound)
            .WithResultMetrics();

        group.MapGet("/{userNo}", GetUser).WithName("GetUser");
        group.MapGet("/{userNo}/highlights", ListUserHighlights).WithName("ListUserHighlights");
        group.MapGet("/{userNo}/books/{bookNo}/highlights", ListBookHighlights).WithName("ListBookHighlights");
        return group;
    }

    private static async Task<Ok<UserView>> GetUser(
        string userNo, HttpContext context, DeviceReads reads, CancellationToken cancellationToken) =>
        TypedResults.Ok(await reads.GetUserAsync(context.Caller(), RequestIds.User(userNo), cancellationToken));

    private static async Task<Ok<HighlightPage>> ListUserHighlights(
        string userNo, string? pageSize, string? cursor, HttpContext context, DeviceReads reads, CancellationToken cancellationToken)
    {
        var page = await reads.ListUserHighlightsAsync(
            context.Caller(), RequestIds.User(userNo), DeviceRequest.PageSize(pageSize), cursor, cancellationToken);
        return TypedResults.Ok(page);
    }

    private static async Task<Ok<HighlightPage>> ListBookHighlights(
        string userNo, string bookNo, string? pageSize, string? cursor, HttpContext context, DeviceReads reads,
        CancellationToken cancellationToken)
    {
        var page = await reads.ListBookHighlightsAsync(
            context.Caller(), RequestIds.User(userNo), RequestIds.Book(bookNo), DeviceRequest.PageSize(pageSize), cursor,
            cancellationToken);
        return TypedResults.Ok(page);
    }
}
