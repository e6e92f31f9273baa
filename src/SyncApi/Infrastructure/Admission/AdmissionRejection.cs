using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.RateLimiting;
using GrpcStatusCode = Grpc.Core.StatusCode;

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
    private const string DeviceRateDetail = "This device is over its request rate; retry later.";
    private const string OverloadedDetail = "The service is over capacity; retry later.";

    public static ValueTask WriteAsync(OnRejectedContext rejected, CancellationToken cancellationToken)
    {
        var http = rejected.HttpContext;
        // Only the per-device token bucket says when a permit comes back; the concurrency limit cannot.
        var perDevice = rejected.Lease.TryGetMetadata(MetadataName.RetryAfter, out var refill);
        return perDevice
            ? WriteAsync(http, perDevice: true, refill, "device over its rate limit", DeviceRateDetail)
            : WriteOverloadedAsync(http, "over capacity");
    }

    /// <summary>
    /// 503 / UNAVAILABLE with <see cref="InstanceAdmission.RetryAfter"/>: the instance as a whole cannot take the request.
    /// </summary>
    public static ValueTask WriteOverloadedAsync(HttpContext http, string reason) =>
        WriteAsync(
            http, perDevice: false, http.RequestServices.GetRequiredService<InstanceAdmission>().RetryAfter, reason, OverloadedDetail);

    /// <summary>
    /// 429 / RESOURCE_EXHAUSTED with <see cref="InstanceAdmission.RetryAfter"/>: this device already holds
    /// its share (<paramref name="detail"/> says which), others are unaffected.
    /// </summary>
    public static ValueTask WriteDeviceShareAsync(HttpContext http, string reason, string detail) =>
        WriteAsync(http, perDevice: true, http.RequestServices.GetRequiredService<InstanceAdmission>().RetryAfter, reason, detail);

    private static async ValueTask WriteAsync(HttpContext http, bool perDevice, TimeSpan retryAfter, string reason, string detail)
    {
        LogRejected(
            http.RequestServices.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(AdmissionRejection)), reason, http.Request.Path);

        var grpc = GrpcResponses.IsGrpc(http.Request);
        http.RequestServices.GetService<SyncMetrics>()?.RecordShedRequest(
            perDevice ? ShedReason.RateLimited : ShedReason.Overloaded, grpc ? Protocols.Grpc : Protocols.Rest);
        if (grpc)
        {
            GrpcResponses.WriteTrailersOnly(
                http,
                perDevice ? GrpcStatusCode.ResourceExhausted : GrpcStatusCode.Unavailable,
                detail,
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
            Detail = detail,
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
