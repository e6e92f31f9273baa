using Serilog;
using Serilog.Core;
using Serilog.Extensions.Logging;
using Serilog.Formatting.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Serilog behind Microsoft.Extensions.Logging: JSON lines on stdout in production, a readable
/// console in development. Levels come from the <c>Serilog</c> configuration section. Any
/// <see cref="ILogEventSink"/> registered in DI receives the same events (tests capture logs this way).
/// </summary>
internal static class SerilogSetup
{
    private const string DevelopmentTemplate =
        "[{Timestamp:HH:mm:ss} {Level:u3}] {SourceContext}: {Message:lj} trace={TraceId}{NewLine}{Exception}";

    public static WebApplicationBuilder AddSerilogLogging(this WebApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        var isDevelopment = builder.Environment.IsDevelopment();

        builder.Logging.ClearProviders();
        builder.Services.AddSingleton<ILoggerProvider>(services =>
        {
            var logger = new LoggerConfiguration()
                .ReadFrom.Configuration(configuration)
                .Enrich.FromLogContext();

            // The console is written from a background queue: a request never waits on stdout. If
            // the queue fills (stdout blocked, or a flood), further events are dropped, not requests.
            logger = isDevelopment
                ? logger.WriteTo.Async(console => console.Console(
                    outputTemplate: DevelopmentTemplate, formatProvider: System.Globalization.CultureInfo.InvariantCulture))
                : logger.WriteTo.Async(console => console.Sink(new BufferedStdoutSink(
                    new JsonFormatter(renderMessage: true, formatProvider: System.Globalization.CultureInfo.InvariantCulture))));

            foreach (var sink in services.GetServices<ILogEventSink>())
            {
                logger = logger.WriteTo.Sink(sink);
            }

            return new SerilogLoggerProvider(logger.CreateLogger(), dispose: true);
        });

        return builder;
    }
}
