using Grpc.Core;
using Kobo.Sync.SyncApi.Infrastructure.Wire;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// Grpc.AspNetCore reads a call's request message before any interceptor runs, and answers a message
/// it cannot read with UNKNOWN ("Exception was thrown by handler.": protobuf that does not parse, a
/// string that is not UTF-8, a compressed flag that is neither 0 nor 1) or INTERNAL ("Incomplete
/// message.", "Additional data after the message received.": a frame whose length prefix lies). Both
/// are the caller's fault, so the caller gets INVALID_ARGUMENT saying so. Such an answer is
/// Trailers-Only (no message was sent), so when the endpoint returns its status is still in response
/// headers that have not left; an answer that has started (a message was written) is never touched.
/// Statuses the service decides itself come from <see cref="GrpcErrorInterceptor"/>, which never answers
/// UNKNOWN and answers INTERNAL only with <see cref="GrpcErrorInterceptor.GenericInternalMessage"/>.
/// </summary>
internal sealed class UnreadableRequestMiddleware(RequestDelegate next)
{
    internal const string UnparsableMessage = "The request message is not valid protobuf for this method.";
    private const string LibraryHandlerFailure = "Exception was thrown by handler.";
    private const string Unknown = "2";
    private const string Internal = "13";

    public Task InvokeAsync(HttpContext context) =>
        GrpcResponses.IsGrpc(context.Request) ? InvokeGrpcAsync(context) : next(context);

    private async Task InvokeGrpcAsync(HttpContext context)
    {
        await next(context);
        var response = context.Response;
        if (response.HasStarted || response.Headers["grpc-status"] is not [{ } status])
        {
            return;
        }

        string message = response.Headers["grpc-message"].ToString();
        if (status == Unknown && message == LibraryHandlerFailure)
        {
            GrpcResponses.WriteTrailersOnly(context, StatusCode.InvalidArgument, UnparsableMessage);
        }
        else if (status == Internal && message != GrpcErrorInterceptor.GenericInternalMessage)
        {
            GrpcResponses.WriteTrailersOnly(
                context, StatusCode.InvalidArgument, $"The request could not be read: {Uri.UnescapeDataString(message)}");
        }
    }
}
