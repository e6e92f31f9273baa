using System.Collections.Concurrent;
using System.Globalization;
using OpenTelemetry.Logs;
using Serilog.Core;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Hands Serilog's events to OpenTelemetry's logger provider (registered only when OTLP export is
/// on), so exported logs pass the same level filter (changeable at run time) and the same redaction
/// as the console, and carry the trace of the request that wrote them: Serilog calls this sink on the
/// logging thread, where the request's activity is current. The provider is looked up at the first
/// event: it is registered beside Serilog's own provider, which builds this sink.
/// </summary>
internal sealed class OpenTelemetryLogSink(IServiceProvider services) : ILogEventSink, IDisposable
{
    private const string DefaultCategory = "Kobo.Sync";

    private readonly Lazy<ILoggerFactory> _factory = new(() => new LoggerFactory(
        [services.GetServices<ILoggerProvider>().OfType<OpenTelemetryLoggerProvider>().Single()]));
    private readonly ConcurrentDictionary<string, ILogger> _loggers = new(StringComparer.Ordinal);

    public void Emit(LogEvent logEvent)
    {
        var category = logEvent.Properties.TryGetValue("SourceContext", out var source) && source is ScalarValue { Value: string name }
            ? name
            : DefaultCategory;
        var logger = _loggers.GetOrAdd(category, _factory.Value.CreateLogger);
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

    /// <summary>The factory only; the provider belongs to the container, which flushes and disposes it.</summary>
    public void Dispose()
    {
        if (_factory.IsValueCreated)
        {
            _factory.Value.Dispose();
        }
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
