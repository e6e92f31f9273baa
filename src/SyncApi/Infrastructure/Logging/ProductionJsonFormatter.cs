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
/// Formats on one thread at a time (the log writer's), which owns the scratch buffer.
/// </summary>
internal sealed class ProductionJsonFormatter : ITextFormatter
{
    private static readonly JsonValueFormatter Values = new(typeTagName: "_typeTag");
    private readonly StringWriter _message = new(CultureInfo.InvariantCulture);

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

        var message = _message.GetStringBuilder();
        message.Clear();
        logEvent.RenderMessage(_message, CultureInfo.InvariantCulture);
        output.Write(",\"RenderedMessage\":");
        WriteQuoted(message, output);

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

    private static string LevelName(LogEventLevel level) => level switch
    {
        LogEventLevel.Verbose => "Verbose",
        LogEventLevel.Debug => "Debug",
        LogEventLevel.Information => "Information",
        LogEventLevel.Warning => "Warning",
        LogEventLevel.Error => "Error",
        LogEventLevel.Fatal => "Fatal",
        _ => level.ToString(),
    };

    // The rendered message is escaped chunk by chunk, without turning the builder into a string first.
    private static void WriteQuoted(System.Text.StringBuilder text, TextWriter output)
    {
        output.Write('"');
        foreach (var chunk in text.GetChunks())
        {
            var span = chunk.Span;
            var start = 0;
            for (var i = 0; i < span.Length; i++)
            {
                var c = span[i];
                if (c >= ' ' && c != '"' && c != '\\')
                {
                    continue;
                }

                output.Write(span[start..i]);
                output.Write(c switch
                {
                    '"' => "\\\"",
                    '\\' => "\\\\",
                    '\n' => "\\n",
                    '\r' => "\\r",
                    '\t' => "\\t",
                    '\f' => "\\f",
                    _ => $"\\u{(int)c:X4}",
                });
                start = i + 1;
            }

            output.Write(span[start..]);
        }

        output.Write('"');
    }
}
