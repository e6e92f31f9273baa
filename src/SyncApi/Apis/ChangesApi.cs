using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// Device sync over REST: push a batch of highlight changes, pull the changes after a sync token.
/// Both call <see cref="DeviceSync"/>, shared with gRPC.
/// </summary>
internal static class ChangesApi
{
    public static RouteGroupBuilder MapChangesApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/changes")
            .RequireAuthorization()
            .WithTags("Sync")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapPost(string.Empty, PushChanges).WithName("PushChanges")
            .ProducesProblem(StatusCodes.Status413PayloadTooLarge);
        group.MapGet(string.Empty, PullChanges).WithName("PullChanges")
            .ProducesProblem(StatusCodes.Status410Gone);
        return group;
    }

    // Written with SyncJsonContext's own options, so absent fields are left out rather than sent as null.
    private static async Task<JsonHttpResult<PushResponse>> PushChanges(
        string userNo, PushRequest? body, HttpContext context, DeviceSync sync, SyncMetrics metrics, CancellationToken cancellationToken)
    {
        var results = await sync.PushAsync(
            context.Caller(), RequestIds.User(userNo), body?.Changes?.Select(c => c?.ToDomain()).ToArray(), cancellationToken);
        metrics.RecordPushResults(results);
        return TypedResults.Json(new PushResponse(results), SyncJsonContext.Default.PushResponse);
    }

    private static async Task<JsonHttpResult<SyncChangePage>> PullChanges(
        string userNo, string? since, string? pageSize, HttpContext context, DeviceSync sync, SyncMetrics metrics,
        CancellationToken cancellationToken)
    {
        var page = await sync.PullAsync(
            context.Caller(), RequestIds.User(userNo), since, DeviceRequest.PageSize(pageSize, DeviceSync.MaxPageSize), cancellationToken);
        if (!page.HasMore)
        {
            metrics.RecordPullPagesPerSync(Protocols.Rest, page.PageOfSync);
        }

        return TypedResults.Json(page, SyncJsonContext.Default.SyncChangePage);
    }
}

/// <summary>The push body: <c>{ "changes": [ ... ] }</c>.</summary>
public sealed record PushRequest(IReadOnlyList<PushedChangeJson?>? Changes);

/// <summary>The push answer: one result per change, in request order.</summary>
public sealed record PushResponse(IReadOnlyList<ChangeResult> Results);
