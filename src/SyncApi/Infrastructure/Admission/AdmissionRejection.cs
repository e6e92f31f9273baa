using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.RateLimiting;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The answer to a request the limiter refused, telling the device when to come back: one device
/// over its own rate gets 429 (gRPC RESOURCE_EXHAUSTED) with the time until its bucket refills; an
/// instance over capacity gets 503 (gRPC UNAVAILABLE) with <see cref="InstanceAdmission.RetryAfter"/>
/// (<c>Admission:OverloadRetryAfterMs</c>, spread up to twice it), as a live pull refused a slot does.
/// REST answers problem+json with <c>Retry-After</c>; gRPC a Trailers-Only status with
/// <c>grpc-retry-pushback-ms</c>.
/// </summary>
internal static partial class AdmissionRejection
{
    public static async ValueTask WriteAsync(OnRejectedContext rejected, CancellationToken cancellationToken)
    {
        var http = rejected.HttpContext;
        // Only the per-device token bucket says when a permit comes back; the concurrency limit cannot.
        var perDevice = rejected.Lease.TryGetMetadata(MetadataName.RetryAfter, out var refill);
        var retryAfter = perDevice ? refill : http.RequestServices.GetRequiredService<InstanceAdmission>().RetryAfter;
        LogRejected(http.RequestServices.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(AdmissionRejection)),
            perDevice ? "device over its rate limit" : "over capacity", http.Request.Path);

        var grpc = GrpcResponses.IsGrpc(http.Request);
        http.RequestServices.GetService<SyncMetrics>()?.RecordShedRequest(
            perDevice ? ShedReason.RateLimited : ShedReason.Overloaded, grpc ? Protocols.Grpc : Protocols.Rest);
        if (grpc)
        {
            GrpcResponses.WriteTrailersOnly(
                http,
                perDevice ? global::Grpc.Core.StatusCode.ResourceExhausted : global::Grpc.Core.StatusCode.Unavailable,
                perDevice ? "This device is over its request rate; retry later." : "The service is over capacity; retry later.",
                RetryAdvice.GrpcTrailer(retryAfter));
            return;
        }

        var status = perDevice ? StatusCodes.Status429TooManyRequests : StatusCodes.Status503ServiceUnavailable;
        http.Response.StatusCode = status;
        http.Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(retryAfter);
        var problem = new ProblemDetails
        {
            Status = status,
            Title = perDevice ? "Too many requests" : "Service unavailable",
            Detail = perDevice ? "This device is over its request rate; retry later." : "The service is over capacity; retry later.",
        };
        problem.Extensions[RetryAdvice.ProblemExtension] = RetryAdvice.Milliseconds(retryAfter);
        await http.RequestServices.GetRequiredService<IProblemDetailsService>().WriteAsync(new ProblemDetailsContext
        {
            HttpContext = http,
            ProblemDetails = problem,
        });
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "Request to {Path} refused: {Reason}")]
    private static partial void LogRejected(ILogger logger, string reason, PathString path);
}
