using System.Collections.Concurrent;
using System.Globalization;
using OpenTelemetry;
using Serilog.Core;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Hands Serilog's events to the logger provider of the one <see cref="OpenTelemetrySdk"/>
/// (registered only when OTLP export is on), so exported logs pass the same level filter (changeable
/// at run time) and the same redaction as the console, and carry the trace of the request that wrote
/// them: Serilog calls this sink on the logging thread, where the request's activity is current.
/// </summary>
internal sealed class OpenTelemetryLogSink(OpenTelemetrySdk sdk) : ILogEventSink
{
    private const string DefaultCategory = "Kobo.Sync";

    private readonly ILoggerFactory _factory = sdk.GetLoggerFactory();
    private readonly ConcurrentDictionary<string, ILogger> _loggers = new(StringComparer.Ordinal);

    public void Emit(LogEvent logEvent)
    {
        var category = logEvent.Properties.TryGetValue("SourceContext", out var source) && source is ScalarValue { Value: string name }
            ? name
            : DefaultCategory;
        var logger = _loggers.GetOrAdd(category, _factory.CreateLogger);
        var level = ToLevel(logEvent.Level);
        if (!logger.IsEnabled(level))
        {
            return;
        }

        var state = new List<KeyValuePair<string, object?>>(logEvent.Properties.Count + 1);
        foreach (var (key, value) in logEvent.Properties)
        {
            state.Add(new(key, value is ScalarValue scalar ? scalar.Value : value.ToString()));
        }

        state.Add(new("{OriginalFormat}", logEvent.MessageTemplate.Text));
        logger.Log(level, default, state, logEvent.Exception, (_, _) => logEvent.RenderMessage(CultureInfo.InvariantCulture));
    }

    private static LogLevel ToLevel(LogEventLevel level) => level switch
    {
        LogEventLevel.Verbose => LogLevel.Trace,
        LogEventLevel.Debug => LogLevel.Debug,
        LogEventLevel.Information => LogLevel.Information,
        LogEventLevel.Warning => LogLevel.Warning,
        LogEventLevel.Error => LogLevel.Error,
        _ => LogLevel.Critical,
    };
}
