using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.Sync;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>A user's devices with their sync state, and revoking one: its tokens stop working at once.</summary>
internal static class DevicesApi
{
    public static RouteGroupBuilder MapDevicesApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/devices")
            .RequireAuthorization()
            .WithTags("Devices")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapGet(string.Empty, ListDevices).WithName("ListDevices");
        group.MapDelete("/{deviceId}", RevokeDevice).WithName("RevokeDevice").ProducesProblem(StatusCodes.Status409Conflict);
        return group;
    }

    private static async Task<JsonHttpResult<DeviceList>> ListDevices(
        string userNo, HttpContext context, DeviceSync sync, CancellationToken cancellationToken) =>
        TypedResults.Json(
            await sync.ListDevicesAsync(context.Caller(), RequestIds.User(userNo), cancellationToken),
            SyncJsonContext.Default.DeviceList);

    private static async Task<NoContent> RevokeDevice(
        string userNo, string deviceId, HttpContext context, DeviceSync sync, CancellationToken cancellationToken)
    {
        await sync.RevokeDeviceAsync(context.Caller(), RequestIds.User(userNo), deviceId, cancellationToken);
        return TypedResults.NoContent();
    }
}
