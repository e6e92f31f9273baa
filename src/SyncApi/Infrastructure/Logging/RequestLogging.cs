using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Serilog;
using Serilog.AspNetCore;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// One log line per request, written by Serilog.AspNetCore's request logging: protocol, method,
/// route template, status and duration. The route template is logged rather than the path and query,
/// so user numbers, cursors and other client values stay out; the package's own <c>RequestPath</c>
/// property is not written. Endpoints marked <see cref="ExcludeFromRequestTelemetry"/> (the metrics
/// scrape) get no line.
/// </summary>
internal static class RequestLogging
{
    public const string MessageTemplate = "{Protocol:l} {Method:l} {Route:l} responded {StatusCode} in {ElapsedMs:0.0} ms";

    /// <summary>Below <see cref="LogEventLevel.Verbose"/>: no minimum level lets it through, so no line is even built.</summary>
    private const LogEventLevel Never = (LogEventLevel)(-1);

    public static IApplicationBuilder UseRequestLogging(this IApplicationBuilder app) =>
        app.UseSerilogRequestLogging(options =>
        {
            options.Logger = app.ApplicationServices.GetRequiredService<Serilog.ILogger>();
            options.MessageTemplate = MessageTemplate;
            options.GetLevel = Level;
            options.GetMessageTemplateProperties = Properties;
        });

    private static LogEventLevel Level(HttpContext context, double elapsedMs, Exception? error)
    {
        if (AnsweringEndpoint.Of(context)?.Metadata.GetMetadata<ExcludeFromRequestTelemetry>() is not null)
        {
            return Never;
        }

        return error is not null || context.Response.StatusCode >= 500 ? LogEventLevel.Error : LogEventLevel.Information;
    }

    private static IEnumerable<LogEventProperty> Properties(HttpContext context, string requestPath, double elapsedMs, int statusCode) =>
    [
        new("Protocol", new ScalarValue(context.Request.Protocol)),
        new("Method", new ScalarValue(context.Request.Method)),
        new("Route", new ScalarValue((AnsweringEndpoint.Of(context) as RouteEndpoint)?.RoutePattern.RawText ?? "(unmatched)")),
        new("StatusCode", new ScalarValue(statusCode)),
        new("ElapsedMs", new ScalarValue(elapsedMs)),
    ];
}
