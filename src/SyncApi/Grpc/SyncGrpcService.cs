using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Authentication;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// <c>kobo.sync.v1.SyncService</c>: authenticate the device, call <see cref="DeviceReads"/> (shared
/// with REST), map the result to the contract's messages. Rejections are mapped in <see cref="SyncGrpcErrors"/>.
/// </summary>
internal sealed class SyncGrpcService(DeviceReads reads, DeviceSync sync, SyncMetrics metrics)
{
    public const string ServiceName = "kobo.sync.v1.SyncService";
    internal const string MissingTokenMessage = "A bearer token is required in the authorization metadata.";

    public static void Map(IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGrpcUnary<GetUserRequest, User>(
            ServiceName, "GetUser", GetUserRequest.Parser, (request, call) => For(call).GetUserAsync(request, call));
        endpoints.MapGrpcUnary<ListUserHighlightsRequest, V1.HighlightPage>(
            ServiceName, "ListUserHighlights", ListUserHighlightsRequest.Parser, (request, call) => For(call).ListUserHighlightsAsync(request, call));
        endpoints.MapGrpcUnary<ListBookHighlightsRequest, V1.HighlightPage>(
            ServiceName, "ListBookHighlights", ListBookHighlightsRequest.Parser, (request, call) => For(call).ListBookHighlightsAsync(request, call));
        endpoints.MapGrpcUnary<PushChangesRequest, PushChangesResponse>(
            ServiceName, "PushChanges", PushChangesRequest.Parser, (request, call) => For(call).PushChangesAsync(request, call));
        endpoints.MapGrpcUnary<PullChangesRequest, PullChangesResponse>(
            ServiceName, "PullChanges", PullChangesRequest.Parser, (request, call) => For(call).PullChangesAsync(request, call));
        endpoints.MapGrpcUnary<ListDevicesRequest, ListDevicesResponse>(
            ServiceName, "ListDevices", ListDevicesRequest.Parser, (request, call) => For(call).ListDevicesAsync(request, call));
        endpoints.MapGrpcUnary<RevokeDeviceRequest, RevokeDeviceResponse>(
            ServiceName, "RevokeDevice", RevokeDeviceRequest.Parser, (request, call) => For(call).RevokeDeviceAsync(request, call));
    }

    public async Task<User> GetUserAsync(GetUserRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var user = await reads.GetUserAsync(caller, RequestIds.User(request.UserNo), call.CancellationToken);
        return new User
        {
            UserNo = user.UserNo,
            Name = user.Name,
            CreatedAt = Timestamp.FromDateTimeOffset(user.CreatedAt),
            Country = user.Country ?? string.Empty,
        };
    }

    public async Task<V1.HighlightPage> ListUserHighlightsAsync(ListUserHighlightsRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var page = await reads.ListUserHighlightsAsync(
            caller, RequestIds.User(request.UserNo), PageSize(request.PageSize), Cursor(request.Cursor), call.CancellationToken);
        metrics.RecordHighlightsPage("ListUserHighlights", Protocols.Grpc, page.Items.Count);
        return ToMessage(page);
    }

    public async Task<V1.HighlightPage> ListBookHighlightsAsync(ListBookHighlightsRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var page = await reads.ListBookHighlightsAsync(
            caller, RequestIds.User(request.UserNo), RequestIds.Book(request.BookNo),
            PageSize(request.PageSize), Cursor(request.Cursor), call.CancellationToken);
        metrics.RecordHighlightsPage("ListBookHighlights", Protocols.Grpc, page.Items.Count);
        return ToMessage(page);
    }

    public async Task<PushChangesResponse> PushChangesAsync(PushChangesRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var results = await sync.PushAsync(
            caller, RequestIds.User(request.UserNo), request.Changes.Select(SyncGrpcChanges.ToDomain).ToArray(), call.CancellationToken);
        metrics.RecordPushResults(results);
        return SyncGrpcChanges.ToMessage(results);
    }

    public async Task<PullChangesResponse> PullChangesAsync(PullChangesRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var page = await sync.PullAsync(
            caller, RequestIds.User(request.UserNo), Cursor(request.Since), PageSize(request.PageSize), call.CancellationToken);
        if (!page.HasMore)
        {
            metrics.RecordPullPagesPerSync(Protocols.Grpc, page.PageOfSync);
        }

        return SyncGrpcChanges.ToMessage(page);
    }

    public async Task<ListDevicesResponse> ListDevicesAsync(ListDevicesRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        var list = await sync.ListDevicesAsync(caller, RequestIds.User(request.UserNo), call.CancellationToken);
        return SyncGrpcChanges.ToMessage(list);
    }

    public async Task<RevokeDeviceResponse> RevokeDeviceAsync(RevokeDeviceRequest request, GrpcCallContext call)
    {
        var caller = await AuthenticateAsync(call);
        await sync.RevokeDeviceAsync(caller, RequestIds.User(request.UserNo), request.DeviceId, call.CancellationToken);
        return new RevokeDeviceResponse();
    }

    // Built per call from the request's services, so the endpoints map before storage is registered.
    private static SyncGrpcService For(GrpcCallContext call) =>
        ActivatorUtilities.GetServiceOrCreateInstance<SyncGrpcService>(call.HttpContext.RequestServices);

    private static async Task<DeviceCaller> AuthenticateAsync(GrpcCallContext call)
    {
        var result = await call.HttpContext.AuthenticateAsync(DeviceAuthentication.Scheme);
        if (!result.Succeeded)
        {
            throw new RpcException(StatusCode.Unauthenticated, result.Failure?.Message ?? MissingTokenMessage);
        }

        return DeviceAuthentication.ToCaller(result.Principal);
    }

    // proto3 scalars have no "absent": 0 and "" mean "not given".
    private static int? PageSize(int pageSize) => pageSize == 0 ? null : pageSize;

    private static string? Cursor(string cursor) => cursor.Length == 0 ? null : cursor;

    private static V1.HighlightPage ToMessage(Domain.Reading.HighlightPage page)
    {
        var message = new V1.HighlightPage { NextCursor = page.NextCursor ?? string.Empty };
        foreach (var item in page.Items)
        {
            var highlight = new Highlight
            {
                Id = item.Id,
                BookNo = item.BookNo,
                Text = item.Text,
                Start = item.Start,
                Length = item.Length,
                Color = item.Color,
                CreatedAt = Timestamp.FromDateTimeOffset(item.CreatedAt),
                ModifiedAt = Timestamp.FromDateTimeOffset(item.ModifiedAt),
            };
            if (item.Note is not null)
            {
                highlight.Note = item.Note;
            }

            message.Items.Add(highlight);
        }

        return message;
    }
}
