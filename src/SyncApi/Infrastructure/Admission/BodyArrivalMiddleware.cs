using System.IO.Pipelines;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Microsoft.AspNetCore.Http.Features;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// Waits until an authenticated request's body has arrived before the request takes an admission
/// slot or starts its database budget, so a device on a slow link (or one trickling its body on
/// purpose) waits on its own time and holds nothing the finished requests need. The body stays in
/// the transport's buffer, examined but not consumed, for the endpoint to read as usual. Past
/// <see cref="ArrivalLimit"/> the request goes on without waiting for the rest: the buffer must stay
/// well inside HTTP/2's flow-control window (768 KiB per stream in Kestrel), or the client could not
/// send the remainder. How long a body may take is bounded by Kestrel's minimum data rate.
/// Unauthenticated requests never get here: they are refused before their body is read.
/// </summary>
internal sealed class BodyArrivalMiddleware(RequestDelegate next)
{
    /// <summary>Device reads and typical pushes are far smaller; a full 500-change push may be larger.</summary>
    internal const int ArrivalLimit = 64 * 1024;

    public async Task InvokeAsync(HttpContext context)
    {
        if (context.Features.Get<IHttpRequestBodyDetectionFeature>() is { CanHaveBody: true })
        {
            try
            {
                await WaitForBodyAsync(context.Request.BodyReader, context.RequestAborted);
            }
            catch (Exception exception) when (exception is IOException or OperationCanceledException)
            {
                if (context.RequestAborted.IsCancellationRequested)
                {
                    // The device hung up while sending: nobody is left to answer.
                    context.Response.StatusCode = RequestRejectedProblemHandler.ClientClosedRequest;
                    return;
                }

                // Anything else wrong with the body (too large, too slow for Kestrel's minimum rate) is
                // the endpoint's to answer when it reads the body, as it would be without this wait.
            }
        }

        await next(context);
    }

    private static async Task WaitForBodyAsync(PipeReader body, CancellationToken cancellationToken)
    {
        while (true)
        {
            var read = await body.ReadAsync(cancellationToken);
            if (read.IsCompleted || read.IsCanceled || read.Buffer.Length >= ArrivalLimit)
            {
                // Nothing consumed or examined: the endpoint's first read returns all of it at once.
                body.AdvanceTo(read.Buffer.Start);
                return;
            }

            // Nothing consumed, everything examined: the next read waits for more bytes.
            body.AdvanceTo(read.Buffer.Start, read.Buffer.End);
        }
    }
}
