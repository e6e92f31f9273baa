using System.Runtime.CompilerServices;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Serilog;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// One log line per request, written by Serilog.AspNetCore's request logging: protocol, method,
/// route template, status and duration. The route template is logged rather than the path and query,
/// so user numbers, cursors and other client values stay out; the package's own <c>RequestPath</c>
/// property is not written. Endpoints marked <see cref="ExcludeFromRequestTelemetry"/> (the metrics
/// scrape) get no line. A refused request (4xx, 503) writes at most one line, and past
/// <c>RequestLog:RefusedLinesPerSecond</c> none (<see cref="RefusedRequestLines"/>): a flood of refusals is
/// counted and summed up instead. A 503 is the service shedding load as designed: Warning; Error is kept
/// for failures (500, an exception).
/// </summary>
internal static class RequestLogging
{
    public const string MessageTemplate = "{Protocol:l} {Method:l} {Route:l} responded {StatusCode} in {ElapsedMs:0.0} ms";

    /// <summary>Below <see cref="LogEventLevel.Verbose"/>: no minimum level lets it through, so no line is even built.</summary>
    private const LogEventLevel Never = (LogEventLevel)(-1);

    public static IApplicationBuilder UseRequestLogging(this IApplicationBuilder app)
    {
        var refusals = app.ApplicationServices.GetRequiredService<RefusedRequestLines>();
        return app.UseSerilogRequestLogging(options =>
        {
            options.Logger = app.ApplicationServices.GetRequiredService<Serilog.ILogger>();
            options.MessageTemplate = MessageTemplate;
            options.GetLevel = (context, elapsedMs, error) => Level(context, error, refusals);
            options.GetMessageTemplateProperties = Properties;
        });
    }

    private static LogEventLevel Level(HttpContext context, Exception? error, RefusedRequestLines refusals)
    {
        if (AnsweringEndpoint.Of(context)?.Metadata.GetMetadata<ExcludeFromRequestTelemetry>() is not null)
        {
            return Never;
        }

        var status = context.Response.StatusCode;
        if (error is null && RefusedRequestLines.IsRefusal(status))
        {
            return !refusals.TryTake(status) ? Never
                : status == StatusCodes.Status503ServiceUnavailable ? LogEventLevel.Warning
                : LogEventLevel.Information;
        }

        return error is not null || status >= 500 ? LogEventLevel.Error : LogEventLevel.Information;
    }

    private static IEnumerable<LogEventProperty> Properties(HttpContext context, string requestPath, double elapsedMs, int statusCode) =>
    [
        Protocol(context.Request.Protocol),
        Method(context.Request.Method),
        Route(AnsweringEndpoint.Of(context)),
        Status(statusCode),
        new("ElapsedMs", new ScalarValue(elapsedMs)),
    ];

    // Every line but its duration repeats values from small sets: those properties are built once
    // each. Values a caller chooses (an unknown method or protocol, a status outside 100-599) are
    // built per line, so no caller can grow the cache.
    private static readonly LogEventProperty[] Protocols =
        [.. new[]
        {
            HttpProtocol.Http10, HttpProtocol.Http11, HttpProtocol.Http2, HttpProtocol.Http3,
        }.Select(p => Property("Protocol", p))];

    private static readonly LogEventProperty[] Methods =
        [.. new[]
        {
            HttpMethods.Get, HttpMethods.Post, HttpMethods.Put, HttpMethods.Delete,
            HttpMethods.Patch, HttpMethods.Head, HttpMethods.Options,
        }.Select(m => Property("Method", m))];

    private static readonly LogEventProperty Unmatched = Property("Route", "(unmatched)");
    private static readonly ConditionalWeakTable<RouteEndpoint, LogEventProperty> Routes = [];
    private static readonly LogEventProperty?[] Statuses = new LogEventProperty?[600];

    private static LogEventProperty Protocol(string protocol) => Known(Protocols, protocol) ?? Property("Protocol", protocol);

    private static LogEventProperty Method(string method) => Known(Methods, method) ?? Property("Method", method);

    private static LogEventProperty Route(Endpoint? endpoint) =>
        endpoint is RouteEndpoint route
            ? Routes.GetValue(route, static r => Property("Route", r.RoutePattern.RawText ?? "(unmatched)"))
            : Unmatched;

    private static LogEventProperty Status(int statusCode) =>
        statusCode is >= 100 and < 600
            ? Statuses[statusCode] ??= new LogEventProperty("StatusCode", new ScalarValue(statusCode))
            : new LogEventProperty("StatusCode", new ScalarValue(statusCode));

    private static LogEventProperty? Known(LogEventProperty[] known, string value)
    {
        foreach (var property in known)
        {
            if (string.Equals(((ScalarValue)property.Value).Value as string, value, StringComparison.Ordinal))
            {
                return property;
            }
        }

        return null;
    }

    private static LogEventProperty Property(string name, string value) => new(name, new ScalarValue(value));
}
