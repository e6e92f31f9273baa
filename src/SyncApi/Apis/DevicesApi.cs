using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>A user's devices with their sync state, a page at a time, and revoking one: its tokens stop working at once.</summary>
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

    private static async Task<JsonHttpResult<DevicePage>> ListDevices(
        string userNo, string? pageSize, string? cursor, HttpContext context, DeviceRegistry devices, CancellationToken cancellationToken)
    {
        var list = await devices.ListDevicesAsync(
            context.Caller(), RequestIds.User(userNo), DeviceRequest.PageSize(pageSize), cursor, cancellationToken);
        return TypedResults.Json(new DevicePage(list.Devices, list.NextCursor), SyncJsonContext.Default.DevicePage);
    }

    private static async Task<NoContent> RevokeDevice(
        string userNo, string deviceId, HttpContext context, DeviceRegistry devices, CancellationToken cancellationToken)
    {
        await devices.RevokeDeviceAsync(context.Caller(), RequestIds.User(userNo), deviceId, cancellationToken);
        return TypedResults.NoContent();
    }
}

/// <summary>
/// A page of the device list as REST writes it: absent device fields are left out, but
/// <c>nextCursor</c> is written as null on the last page, as on the highlight pages.
/// </summary>
internal sealed record DevicePage(
    IReadOnlyList<DeviceView> Devices,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] string? NextCursor);
