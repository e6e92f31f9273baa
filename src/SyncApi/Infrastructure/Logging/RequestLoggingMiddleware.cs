using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Diagnostics;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// One log line per request: protocol, method, route template, status and duration. The route
/// template is logged rather than the path and query, so cursors and other client values stay out.
/// Endpoints marked <see cref="ExcludeFromRequestTelemetry"/> (the metrics scrape) get no line.
/// </summary>
internal sealed class RequestLoggingMiddleware(RequestDelegate next, ILogger<RequestLoggingMiddleware> logger)
{
    public async Task InvokeAsync(HttpContext context)
    {
        var started = Stopwatch.GetTimestamp();
        try
        {
            await next(context);
        }
        finally
        {
            var elapsedMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
            // An error answer is re-executed without the endpoint; the handler's feature still names it.
            var endpoint = context.GetEndpoint() ?? context.Features.Get<IExceptionHandlerFeature>()?.Endpoint;
            if (endpoint?.Metadata.GetMetadata<ExcludeFromRequestTelemetry>() is null)
            {
                Log(context, endpoint, elapsedMs);
            }
        }
    }

    private void Log(HttpContext context, Endpoint? endpoint, double elapsedMs)
    {
        var route = (endpoint as RouteEndpoint)?.RoutePattern.RawText ?? "(unmatched)";
        var status = context.Response.StatusCode;
        logger.Log(
            status >= 500 ? LogLevel.Error : LogLevel.Information,
            "{Protocol:l} {Method:l} {Route:l} responded {StatusCode} in {ElapsedMs:0.0} ms",
            context.Request.Protocol,
            context.Request.Method,
            route,
            status,
            elapsedMs);
    }
}
