using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Options;
using GrpcStatusCode = Grpc.Core.StatusCode;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// Reads an authenticated request's whole body off the connection before the request takes an
/// admission slot or starts its database budget (<see cref="ArrivedBody"/>), so a device on a slow link
/// (or one trickling its body on purpose) waits on its own time and holds nothing the finished requests
/// need: the slot is held only while the service works. The body cannot stay in the transport's buffer
/// instead: Kestrel stops reading an HTTP/1.1 connection past 1 MiB, and HTTP/2's flow-control window is
/// 768 KiB a stream, so a larger body could never finish arriving.
/// What a device may hold is bounded: the endpoint's largest body (gRPC: one message of
/// <see cref="GrpcResponses.MaxReceiveMessageSize"/>; REST: the endpoint's request size limit), the
/// device's and its user's shares of body bytes (429) and the instance's budgets (503), where small
/// bodies have a reserve large ones cannot take (see <see cref="DeviceLoads"/>). How long a body may take
/// is bounded by what it brings lately: at least <c>Admission:BodyProgressMinBytes</c> in every
/// <c>Admission:BodyProgressWindowMs</c>, or it is cut (408 / DEADLINE_EXCEEDED), as well as by Kestrel's
/// minimum data rate. Unauthenticated requests never get here with a body: they are refused before it is read.
/// </summary>
internal sealed class BodyArrivalMiddleware(RequestDelegate next, DeviceLoads loads, IOptions<AdmissionOptions> options)
{
    private readonly ArrivedBody.Progress _progress = new(
        TimeSpan.FromMilliseconds(options.Value.BodyProgressWindowMs), options.Value.BodyProgressMinBytes);

    /// <summary>A gRPC message's length prefix: the compressed flag and four bytes of length.</summary>
    private const int GrpcFrameHeaderBytes = 5;

    private const string StalledDetail = "The request body stopped arriving; send it again.";

    // A request without a body (every read) passes straight through, with no asynchronous step of its own.
    public Task InvokeAsync(HttpContext context) =>
        context.Features.Get<IHttpRequestBodyDetectionFeature>() is not { CanHaveBody: true }
        || AdmissionRequests.DeviceOf(context) is not { } device
        || AdmissionRequests.StreamsRequest(context)
            ? next(context)
            : ReceiveAsync(context, device);

    private async Task ReceiveAsync(HttpContext context, string device)
    {
        var grpc = GrpcResponses.IsGrpc(context.Request);
        var limit = grpc
            ? GrpcResponses.MaxReceiveMessageSize + GrpcFrameHeaderBytes
            : context.Features.Get<IHttpMaxRequestBodySizeFeature>()?.MaxRequestBodySize ?? long.MaxValue;
        using var body = new ArrivedBody(loads, device, AdmissionRequests.UserOf(context)!, _progress);
        ArrivedBody.Outcome outcome;
        try
        {
            outcome = await body.ReadAsync(context.Request.BodyReader, context.Request.ContentLength, limit, context.RequestAborted);
        }
        catch (Exception exception) when (exception is (IOException and not BadHttpRequestException) or OperationCanceledException)
        {
            // The device hung up while sending (its connection reset or aborted): nobody is left to answer.
            // A body the server refuses (too large, too slow for Kestrel's minimum rate) is a
            // BadHttpRequestException, answered by the error handler as it would be from the endpoint.
            context.Response.StatusCode = HttpStatuses.ClientClosedRequest;
            return;
        }

        switch (outcome)
        {
            case ArrivedBody.Outcome.TooLarge when grpc:
                // What Grpc.AspNetCore answers a message over its limit.
                GrpcResponses.WriteTrailersOnly(context, GrpcStatusCode.ResourceExhausted, GrpcResponses.MessageTooLarge);
                return;
            case ArrivedBody.Outcome.TooLarge:
                throw new BadHttpRequestException(
                    "The request body is larger than this endpoint accepts.", StatusCodes.Status413PayloadTooLarge);
            case ArrivedBody.Outcome.OverDeviceShare:
                await AdmissionRejection.WriteDeviceShareAsync(context, "device holds its share of request bodies",
                    "This device is sending too many request bodies at once; retry later.");
                return;
            case ArrivedBody.Outcome.OverUserShare:
                await AdmissionRejection.WriteDeviceShareAsync(context, "user holds its share of request bodies",
                    "This account's devices are sending too many request bodies at once; retry later.");
                return;
            case ArrivedBody.Outcome.OverInstanceBudget:
                await AdmissionRejection.WriteOverloadedAsync(context, "request bodies over the instance's budget");
                return;
            case ArrivedBody.Outcome.Stalled when grpc:
                GrpcResponses.WriteTrailersOnly(context, GrpcStatusCode.DeadlineExceeded, StalledDetail);
                return;
            case ArrivedBody.Outcome.Stalled:
                // The rest of the body will not be read: the connection is closed after this answer.
                context.Response.Headers.Connection = "close";
                throw new BadHttpRequestException(StalledDetail, StatusCodes.Status408RequestTimeout);
        }

        var restore = body.Install(context);
        try
        {
            await next(context);
        }
        finally
        {
            restore.To(context);
        }
    }
}
