using Serilog;
using Serilog.Core;
using Serilog.Extensions.Logging;
using Serilog.Formatting;
using Serilog.Formatting.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Serilog behind Microsoft.Extensions.Logging: JSON lines on stdout in production, a readable
/// console in development; trace and span ids on every line; tokens, cursors and highlight text
/// redacted (<see cref="SensitiveDataRedactor"/>). Levels come from the <c>Serilog</c> configuration
/// section and follow its reloads. Any
/// <see cref="ILogEventSink"/> registered in DI receives the same events (tests capture logs this way).
/// </summary>
internal static class SerilogSetup
{
    private const string DevelopmentTemplate =
        "[{Timestamp:HH:mm:ss} {Level:u3}] {SourceContext}: {Message:lj} trace={TraceId} span={SpanId}{NewLine}{Exception}";

    public static WebApplicationBuilder AddSerilogLogging(this WebApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        var isDevelopment = builder.Environment.IsDevelopment();

        builder.Logging.ClearProviders();

        // No logging scopes: ASP.NET Core's request scope would add the raw request path (user and
        // book numbers) and connection ids to every line, which the route template and the trace id
        // replace; capturing it was also a per-event cost on the request's thread.
        builder.Services.Configure<LoggerFilterOptions>(options => options.CaptureScopes = false);
        builder.Services.AddSingleton<ILoggerProvider>(services =>
        {
            // Levels (Serilog:MinimumLevel:Default and :Override) follow configuration reloads, so an
            // operator changes them in appsettings.json without a restart.
            var logger = new LoggerConfiguration()
                .ReadFrom.Configuration(configuration)
                .Enrich.FromLogContext()
                .Enrich.With<SensitiveDataRedactor>();

            // The console is written from a background queue: a request never waits on stdout. If
            // the queue fills (stdout blocked, or a flood), further events are dropped, not requests.
            // In production the sink is its own queue, drained in batches by one writer thread.
            logger = isDevelopment
                ? logger.WriteTo.Async(console => console.Console(
                    outputTemplate: DevelopmentTemplate, formatProvider: System.Globalization.CultureInfo.InvariantCulture))
                : logger.WriteTo.Sink(new BufferedStdoutSink(ProductionFormatter()));

            foreach (var sink in services.GetServices<ILogEventSink>())
            {
                logger = logger.WriteTo.Sink(sink);
            }

            return new SerilogLoggerProvider(logger.CreateLogger(), dispose: true);
        });

        return builder;
    }

    /// <summary>One JSON object per line: timestamp, level, template, rendered message, properties, trace and span ids.</summary>
    internal static ITextFormatter ProductionFormatter() =>
        new ProductionJsonFormatter();
}
