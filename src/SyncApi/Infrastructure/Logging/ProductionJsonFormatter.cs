using System.Globalization;
using Serilog.Events;
using Serilog.Formatting;
using Serilog.Formatting.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// The production log line: one JSON object with Serilog's field names (<c>Timestamp</c>, <c>Level</c>,
/// <c>MessageTemplate</c>, <c>RenderedMessage</c>, <c>TraceId</c>, <c>SpanId</c>, <c>Exception</c>,
/// <c>Properties</c>), the same as Serilog's <see cref="JsonFormatter"/> writes, without its
/// <c>Renderings</c> section: that repeats values the rendered message already shows, and working it
/// out took a LINQ grouping and several allocations per event on every request's log line.
/// </summary>
internal sealed class ProductionJsonFormatter : ITextFormatter
{
    private static readonly JsonValueFormatter Values = new(typeTagName: "_typeTag");

    public void Format(LogEvent logEvent, TextWriter output)
    {
        Span<char> timestamp = stackalloc char[40];
        logEvent.Timestamp.TryFormat(timestamp, out var length, "O", CultureInfo.InvariantCulture);
        output.Write("{\"Timestamp\":\"");
        output.Write(timestamp[..length]);
        output.Write("\",\"Level\":\"");
        output.Write(LevelName(logEvent.Level));
        output.Write("\",\"MessageTemplate\":");
        JsonValueFormatter.WriteQuotedJsonString(logEvent.MessageTemplate.Text, output);

        output.Write(",\"RenderedMessage\":");
        JsonValueFormatter.WriteQuotedJsonString(logEvent.RenderMessage(CultureInfo.InvariantCulture), output);

        if (logEvent.TraceId is { } traceId)
        {
            output.Write(",\"TraceId\":\"");
            output.Write(traceId.ToHexString());
            output.Write('"');
        }

        if (logEvent.SpanId is { } spanId)
        {
            output.Write(",\"SpanId\":\"");
            output.Write(spanId.ToHexString());
            output.Write('"');
        }

        if (logEvent.Exception is { } exception)
        {
            output.Write(",\"Exception\":");
            JsonValueFormatter.WriteQuotedJsonString(exception.ToString(), output);
        }

        if (logEvent.Properties.Count > 0)
        {
            output.Write(",\"Properties\":{");
            var first = true;
            foreach (var (name, value) in logEvent.Properties)
            {
                if (!first)
                {
                    output.Write(',');
                }

                first = false;
                JsonValueFormatter.WriteQuotedJsonString(name, output);
                output.Write(':');
                Values.Format(value, output);
            }

            output.Write('}');
        }

        output.Write('}');
        output.WriteLine();
    }

    // Enum.ToString would box the level on every line.
    private static string LevelName(LogEventLevel level) => level switch
    {
        LogEventLevel.Verbose => nameof(LogEventLevel.Verbose),
        LogEventLevel.Debug => nameof(LogEventLevel.Debug),
        LogEventLevel.Information => nameof(LogEventLevel.Information),
        LogEventLevel.Warning => nameof(LogEventLevel.Warning),
        LogEventLevel.Error => nameof(LogEventLevel.Error),
        LogEventLevel.Fatal => nameof(LogEventLevel.Fatal),
        _ => level.ToString(),
    };
}
