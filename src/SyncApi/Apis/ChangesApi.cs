using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// Device sync over REST: push a batch of highlight changes, pull the changes after a sync token (and
/// wait for them: live pull). Both call the application services shared with gRPC.
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
            .ProducesProblem(StatusCodes.Status404NotFound)
            .WithResultMetrics();

        group.MapPost(string.Empty, PushChanges).WithName("PushChanges")
            .ProducesProblem(StatusCodes.Status413PayloadTooLarge);
        group.MapGet(string.Empty, PullChanges).WithName("PullChanges")
            .ProducesProblem(StatusCodes.Status410Gone);
        return group;
    }

    // Written with SyncJsonContext's own options, so absent fields are left out rather than sent as null.
    // With ?since= (the device's sync token), the answer carries it again with the push as the device's last write.
    private static async Task<JsonHttpResult<PushResponse>> PushChanges(
        string userNo, string? since, PushRequest? body, HttpContext context, DeviceSync sync, CancellationToken cancellationToken)
    {
        var answer = await sync.PushAsync(
            context.Caller(), RequestIds.User(userNo), body?.Changes?.Select(c => c?.ToDomain()).ToArray(), since, cancellationToken);
        return TypedResults.Json(new PushResponse(answer.Results, answer.SyncToken), SyncJsonContext.Default.PushResponse);
    }

    /// <summary>
    /// A pull; with <c>wait</c> (1 to 60 seconds) a live pull that, when the device is up to date, answers
    /// when a change commits or the wait ends (<see cref="LivePull"/>). A wait the instance cannot take is
    /// answered at once with <c>Retry-After</c>: when to wait again.
    /// </summary>
    private static async Task<JsonHttpResult<SyncChangePage>> PullChanges(
        string userNo, string? since, string? pageSize, string? wait, HttpContext context, DeviceSync sync, LivePull live,
        DeviceRevocationList revocations, TimeProvider clock, CancellationToken cancellationToken)
    {
        var caller = context.Caller();
        var user = RequestIds.User(userNo);
        var size = DeviceRequest.PageSize(pageSize, DeviceSync.MaxPageSize);
        var waitSeconds = LiveRequests.WaitSeconds(wait);
        SyncChangePage page;
        // A live request passed admission without a slot (it takes one per pull); any other holds one already.
        if (waitSeconds > 0 && LiveRequests.IsLive(context))
        {
            var principal = context.User;
            var answer = await live.PullAsync(
                caller, user, since, size, TimeSpan.FromSeconds(waitSeconds), DeviceAuthentication.ExpiresAt(principal),
                () => DeviceAuthentication.StillHolds(principal, revocations, clock.GetUtcNow()), cancellationToken);
            page = answer.Page;
            if (answer.RetryAfter is { } retryAfter)
            {
                context.Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(retryAfter);
            }

            if (answer.Woken is { } woken)
            {
                context.Response.OnCompleted(() =>
                {
                    live.RecordDelivery(Protocols.Rest, woken);
                    return Task.CompletedTask;
                });
            }
        }
        else
        {
            page = await sync.PullAsync(caller, user, since, size, cancellationToken);
        }

        return TypedResults.Json(page, SyncJsonContext.Default.SyncChangePage);
    }
}

/// <summary>The push body: <c>{ "changes": [ ... ] }</c>.</summary>
public sealed record PushRequest(IReadOnlyList<PushedChangeJson?>? Changes);

/// <summary>
/// The push answer: one result per change, in request order, and when the push sent <c>since</c>, the sync
/// token to pull with next (the same position, with the push as the device's last write).
/// </summary>
public sealed record PushResponse(IReadOnlyList<ChangeResult> Results, string? SyncToken = null);
