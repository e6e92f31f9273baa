using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Microsoft.AspNetCore.Authorization;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// <c>kobo.sync.v1.SyncService</c>: call <see cref="DeviceReads"/>, <see cref="DeviceSync"/>, <see cref="DeviceRegistry"/>,
/// <see cref="ReadingStateSync"/>, <see cref="CollectionSync"/> and <see cref="KoboLinkRegistry"/> (shared with REST) as the authenticated
/// device, and map the result to the contract's messages. A call without a valid token never gets here: the authorization
/// middleware refuses it before its message is read. Rejections become statuses in <see cref="GrpcErrorInterceptor"/>; what the
/// answers hold is measured in <see cref="GrpcResultMetricsInterceptor"/>.
/// </summary>
[Authorize]
internal sealed class SyncGrpcService(
    DeviceReads reads, DeviceSync sync, LivePull live, DeviceRevocationList revocations, TimeProvider clock,
    ReadingStateSync readingStates, KoboLinkRegistry koboLinks, CollectionSync collections, DeviceRegistry devices)
    : SyncService.SyncServiceBase
{
    public const string ServiceName = "kobo.sync.v1.SyncService";

    public override async Task<User> GetUser(GetUserRequest request, ServerCallContext context)
    {
        var user = await reads.GetUserAsync(Caller(context), RequestIds.User(request.UserNo), context.CancellationToken);
        return new User
        {
            UserNo = user.UserNo,
            Name = user.Name,
            CreatedAt = Timestamp.FromDateTimeOffset(user.CreatedAt),
            Country = user.Country ?? string.Empty,
        };
    }

    public override async Task<Contracts.Grpc.V1.HighlightPage> ListUserHighlights(
        ListUserHighlightsRequest request, ServerCallContext context)
    {
        var page = await reads.ListUserHighlightsAsync(
            Caller(context), RequestIds.User(request.UserNo), PageSize(request.PageSize),
            Cursor(request.Cursor), context.CancellationToken);
        return ToMessage(page);
    }

    public override async Task<Contracts.Grpc.V1.HighlightPage> ListBookHighlights(
        ListBookHighlightsRequest request, ServerCallContext context)
    {
        var page = await reads.ListBookHighlightsAsync(
            Caller(context), RequestIds.User(request.UserNo), RequestIds.Book(request.BookNo),
            PageSize(request.PageSize), Cursor(request.Cursor), context.CancellationToken);
        return ToMessage(page);
    }

    public override async Task<PushChangesResponse> PushChanges(PushChangesRequest request, ServerCallContext context)
    {
        var answer = await sync.PushAsync(
            Caller(context), RequestIds.User(request.UserNo),
            request.Changes.Select(SyncGrpcChanges.ToDomain).ToArray(), Cursor(request.Since),
            context.CancellationToken);
        var message = SyncGrpcChanges.ToMessage(answer.Results);
        message.SyncToken = answer.SyncToken ?? string.Empty;
        return message;
    }

    public override async Task<PullChangesResponse> PullChanges(PullChangesRequest request, ServerCallContext context)
    {
        var page = await sync.PullAsync(
            Caller(context), RequestIds.User(request.UserNo), Cursor(request.Since), PageSize(request.PageSize), context.CancellationToken);
        return SyncGrpcChanges.ToMessage(page);
    }

    /// <summary>
    /// Live pull as a server stream (<see cref="LivePull.WatchAsync"/>): the backlog, then a page per commit,
    /// heartbeats while idle. Ends at the call's deadline or when the client cancels (the interceptor's
    /// DEADLINE_EXCEEDED or CANCELLED), or OK after <c>Sync:WatchMaxSeconds</c>. A watch outliving its
    /// token (expired, or the device revoked) ends UNAUTHENTICATED at its next message, heartbeats included.
    /// </summary>
    public override Task WatchChanges(
        WatchChangesRequest request, IServerStreamWriter<WatchChangesResponse> responseStream, ServerCallContext context) =>
        live.WatchAsync(
            Caller(context), RequestIds.User(request.UserNo), Cursor(request.Since), PageSize(request.PageSize),
            async page =>
            {
                if (!DeviceAuthentication.StillHolds(context.GetHttpContext().User, revocations, clock.GetUtcNow()))
                {
                    throw new RpcException(new Status(
                        StatusCode.Unauthenticated,
                        "The device's token has expired or the device was revoked; watch again with a valid token."));
                }

                await responseStream.WriteAsync(SyncGrpcChanges.ToWatchMessage(page), context.CancellationToken);
            },
            context.CancellationToken);

    public override async Task<ListDevicesResponse> ListDevices(ListDevicesRequest request, ServerCallContext context)
    {
        var list = await devices.ListDevicesAsync(
            Caller(context), RequestIds.User(request.UserNo), PageSize(request.PageSize),
            Cursor(request.Cursor), context.CancellationToken);
        return SyncGrpcChanges.ToMessage(list);
    }

    public override async Task<RevokeDeviceResponse> RevokeDevice(RevokeDeviceRequest request, ServerCallContext context)
    {
        await devices.RevokeDeviceAsync(Caller(context), RequestIds.User(request.UserNo), request.DeviceId, context.CancellationToken);
        return new RevokeDeviceResponse();
    }

    public override async Task<ListKoboLinksResponse> ListKoboLinks(ListKoboLinksRequest request, ServerCallContext context)
    {
        var links = await koboLinks.ListAsync(Caller(context), RequestIds.User(request.UserNo), context.CancellationToken);
        var response = new ListKoboLinksResponse();
        foreach (var link in links)
        {
            var message = new Contracts.Grpc.V1.KoboLink
            {
                Id = link.Id, DeviceId = link.LinkingDeviceId, CreatedAt = Timestamp.FromDateTimeOffset(link.CreatedAt),
            };
            if (link.RevokedAt is { } revokedAt)
            {
                message.RevokedAt = Timestamp.FromDateTimeOffset(revokedAt);
            }

            response.Links.Add(message);
        }

        return response;
    }

    public override async Task<RevokeKoboLinkResponse> RevokeKoboLink(RevokeKoboLinkRequest request, ServerCallContext context)
    {
        await koboLinks.RevokeAsync(Caller(context), RequestIds.User(request.UserNo), request.LinkId, context.CancellationToken);
        return new RevokeKoboLinkResponse();
    }

    public override async Task<Contracts.Grpc.V1.ReadingState> GetReadingState(GetReadingStateRequest request, ServerCallContext context)
    {
        var state = await readingStates.GetAsync(
            Caller(context), RequestIds.User(request.UserNo), RequestIds.Book(request.BookNo), context.CancellationToken);
        return SyncGrpcReadingStates.ToMessage(state);
    }

    public override async Task<PutReadingStateResponse> PutReadingState(PutReadingStateRequest request, ServerCallContext context)
    {
        var result = await readingStates.PutAsync(
            Caller(context), RequestIds.User(request.UserNo), RequestIds.Book(request.BookNo),
            SyncGrpcReadingStates.ToDomain(request), context.CancellationToken);
        return SyncGrpcReadingStates.ToMessage(result);
    }

    public override async Task<ListCollectionsResponse> ListCollections(ListCollectionsRequest request, ServerCallContext context)
    {
        var list = await collections.ListAsync(
            Caller(context), RequestIds.User(request.UserNo), PageSize(request.PageSize),
            Cursor(request.Cursor), context.CancellationToken);
        return SyncGrpcCollections.ToMessage(list);
    }

    public override async Task<Contracts.Grpc.V1.Collection> GetCollection(GetCollectionRequest request, ServerCallContext context)
    {
        var collection = await collections.GetAsync(
            Caller(context), RequestIds.User(request.UserNo), request.CollectionId, context.CancellationToken);
        return SyncGrpcCollections.ToMessage(collection);
    }

    public override async Task<PushCollectionChangesResponse> PushCollectionChanges(
        PushCollectionChangesRequest request, ServerCallContext context)
    {
        var result = await collections.PushAsync(
            Caller(context), RequestIds.User(request.UserNo),
            request.Changes.Select(SyncGrpcCollections.ToDomain).ToArray(), context.CancellationToken);
        return SyncGrpcCollections.ToMessage(result);
    }

    private static DeviceCaller Caller(ServerCallContext context) => DeviceAuthentication.ToCaller(context.GetHttpContext().User);

    // proto3 scalars have no "absent": 0 and "" mean "not given".
    private static int? PageSize(int pageSize) => pageSize == 0 ? null : pageSize;

    private static string? Cursor(string cursor) => cursor.Length == 0 ? null : cursor;

    private static Contracts.Grpc.V1.HighlightPage ToMessage(Domain.Queries.HighlightPage page)
    {
        var message = new Contracts.Grpc.V1.HighlightPage { NextCursor = page.NextCursor ?? string.Empty };
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

            if (item.Location is not null)
            {
                highlight.Location = item.Location;
            }

            message.Items.Add(highlight);
        }

        return message;
    }
}
