using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Options;
using GrpcStatusCode = Grpc.Core.StatusCode;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// Reads an authenticated request's whole body before the request takes an admission slot or starts its
/// database budget (<see cref="ArrivedBody"/>), so a body on a slow link, or trickled on purpose, holds nothing
/// the finished requests need. Bounded in bytes: the endpoint's largest body (gRPC: one message of
/// <see cref="GrpcResponses.MaxReceiveMessageSize"/>), the device's and its user's shares (429) and the instance's
/// budgets (503), with a reserve for small bodies (<see cref="DeviceLoads"/>); and in time: at least
/// <c>Admission:BodyProgressMinBytes</c> in every <c>Admission:BodyProgressWindowMs</c>, or 408 / DEADLINE_EXCEEDED.
/// An unauthenticated request never gets here with a body: it is refused before the body is read. Why the body
/// cannot wait in the transport instead: docs/architecture.md, "Failover and resilience".
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
