using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Serilog;
using Serilog.Core;
using Serilog.Extensions.Hosting;
using Serilog.Extensions.Logging;
using Serilog.Formatting;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Serilog behind Microsoft.Extensions.Logging: JSON lines on stdout in production, a readable
/// console in development; trace and span ids on every line; tokens, cursors and highlight text
/// redacted (<see cref="SensitiveDataRedactor"/>). Levels come from the <c>Serilog</c> configuration
/// section and follow its reloads. Any
/// <see cref="ILogEventSink"/> registered in DI receives the same events (tests capture logs this way).
/// The one line per request is written by Serilog.AspNetCore's request logging (<see cref="RequestLogging"/>).
/// Every logging default lives here but the levels (<see cref="Hosting.ServiceSettings.Defaults"/>): enrichers, sinks and the development
/// template.
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
        builder.Services.AddValidatedOptions<RequestLogOptions>(RequestLogOptions.SectionName);
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<RefusedRequestLines>();
        builder.Services.AddHostedService<RefusedRequestSummary>();

        // No logging scopes. Serilog is plugged in as a provider of ASP.NET Core's own logger factory,
        // not as a replacement of it (Serilog.Extensions.Hosting's AddSerilog), because only that
        // factory honours CaptureScopes=false: ASP.NET Core's request scope would otherwise add the raw
        // request path (user and book numbers), RequestId and ConnectionId to every line, which the
        // route template and the trace id replace, and pushing it was a per-request cost.
        builder.Services.Configure<LoggerFilterOptions>(options => options.CaptureScopes = false);

        // The one Serilog logger, disposed (and its sinks flushed) with the service provider.
        builder.Services.AddSingleton<Serilog.ILogger>(services =>
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

            // With OTLP on: OpenTelemetry's logger provider, through Serilog's providers sink (TelemetryExtensions).
            if (services.GetService<LoggerProviderCollection>() is { } providers)
            {
                logger = logger.WriteTo.Providers(providers);
            }

            foreach (var sink in services.GetServices<ILogEventSink>())
            {
                logger = logger.WriteTo.Sink(sink);
            }

            return logger.CreateLogger();
        });
        builder.Services.AddSingleton<ILoggerProvider>(services => new RedactingLoggerProvider(
            new SerilogLoggerProvider(services.GetRequiredService<Serilog.ILogger>(), dispose: false)));

        // What Serilog.AspNetCore's request logging needs (AddSerilog would register it too).
        builder.Services.AddSingleton(services => new DiagnosticContext(services.GetRequiredService<Serilog.ILogger>()));
        builder.Services.AddSingleton<IDiagnosticContext>(services => services.GetRequiredService<DiagnosticContext>());

        return builder;
    }

    /// <summary>One JSON object per line: timestamp, level, template, rendered message, properties, trace and span ids.</summary>
    internal static ITextFormatter ProductionFormatter() =>
        new ProductionJsonFormatter();
}
