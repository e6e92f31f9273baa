using System.Diagnostics;
using System.Globalization;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Http.Features;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Records every device request in the <c>Kobo.Sync</c> meter (count by endpoint, protocol and
/// outcome; duration by endpoint and protocol) and names the request's server span after its route
/// or gRPC method. For gRPC the outcome is the call's <c>grpc-status</c> (in the headers of a
/// Trailers-Only answer, else in the trailers), not the HTTP status, which is 200 either way. Live pulls
/// (<see cref="LiveRequests"/>) are counted but not timed: they last as long as they wait. For the same
/// reason they are left out of ASP.NET Core's own <c>http.server.request.duration</c>.
/// </summary>
internal sealed class RequestTelemetryMiddleware(RequestDelegate next, SyncMetrics metrics, EndpointLabels labels)
{
    private const string GrpcStatus = "grpc-status";

    public async Task InvokeAsync(HttpContext context)
    {
        var started = Stopwatch.GetTimestamp();
        var live = LiveRequests.IsLive(context);
        if (live && context.Features.Get<IHttpMetricsTagsFeature>() is { } hostingMetrics)
        {
            hostingMetrics.MetricsDisabled = true;
        }

        try
        {
            await next(context);
        }
        finally
        {
            var elapsed = Stopwatch.GetElapsedTime(started);
            var label = labels.For(AnsweringEndpoint.Of(context));
            if (!label.IsExcluded)
            {
                // The gRPC listener speaks HTTP/2 only; a plain HTTP/2 request there is not a call.
                var isGrpc = HttpProtocol.IsHttp2(context.Request.Protocol) && GrpcResponses.IsGrpc(context.Request);
                var protocol = isGrpc ? Protocols.Grpc : Protocols.Rest;
                var status = context.Response.StatusCode;
                int? grpcStatus = isGrpc && status == StatusCodes.Status200OK ? ReadGrpcStatus(context) : null;
                var outcome = grpcStatus is { } code ? RequestOutcomes.FromGrpcStatus(code) : RequestOutcomes.FromHttpStatus(status);
                // A live pull lasts as long as it waits for a change: counted, under a name of its own over
                // REST, but kept out of the latency histogram (its wake latency has instruments of its own).
                var endpoint = live && !isGrpc ? LiveRequests.RestWaitEndpoint : label.Endpoint!;
                metrics.RecordRequest(endpoint, protocol, outcome, live ? null : elapsed);
                NameSpan(context, label, isGrpc, grpcStatus);
            }
        }
    }

    private static int? ReadGrpcStatus(HttpContext context)
    {
        var value = context.Response.Headers[GrpcStatus];
        if (value.Count == 0 && context.Features.Get<IHttpResponseTrailersFeature>() is { } trailers)
        {
            value = trailers.Trailers[GrpcStatus];
        }

        // No status at all: the call broke off before the server could finish it.
        return int.TryParse(value.ToString(), NumberStyles.None, CultureInfo.InvariantCulture, out var code) ? code : 2;
    }

    /// <summary>OpenTelemetry's HTTP and RPC span conventions: "GET /v1/users/{userNo}" or "kobo.sync.v1.SyncService/GetUser".</summary>
    private static void NameSpan(HttpContext context, EndpointLabels.Label label, bool isGrpc, int? grpcStatus)
    {
        // ASP.NET Core starts an activity for every request so that log lines carry a trace id; unless
        // a tracer listens to its source (OTLP export, or a test's processor) nobody reads its tags.
        if (Activity.Current is not { IsAllDataRequested: true } activity || !activity.Source.HasListeners() || label.Route is null)
        {
            return;
        }

        activity.SetTag("http.route", label.Route);
        activity.SetTag("http.response.status_code", context.Response.StatusCode);
        if (isGrpc)
        {
            activity.DisplayName = label.Route.TrimStart('/');
            activity.SetTag("rpc.system", "grpc");
            var slash = label.Route.IndexOf('/', 1);
            if (slash > 0)
            {
                activity.SetTag("rpc.service", label.Route[1..slash]);
                activity.SetTag("rpc.method", label.Route[(slash + 1)..]);
            }

            activity.SetTag("rpc.grpc.status_code", grpcStatus);
            if (grpcStatus is not (null or 0))
            {
                activity.SetStatus(ActivityStatusCode.Error);
            }
        }
        else
        {
            activity.DisplayName = string.Concat(context.Request.Method, " ", label.Route);
            if (context.Response.StatusCode >= 500)
            {
                activity.SetStatus(ActivityStatusCode.Error);
            }
        }
    }
}
