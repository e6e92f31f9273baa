using System.Collections.Concurrent;
using Serilog.Core;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>A Serilog sink that keeps every event, registered into the service under test.</summary>
public sealed class CapturedLogs : ILogEventSink
{
    private readonly ConcurrentQueue<LogEvent> _events = new();

    public IReadOnlyList<LogEvent> Events => [.. _events];

    public IReadOnlyList<LogEvent> RequestLines =>
        [.. _events.Where(e => e.MessageTemplate.Text.Contains("responded {StatusCode}", StringComparison.Ordinal))];

    public void Emit(LogEvent logEvent) => _events.Enqueue(logEvent);

    /// <summary>Forgets the events kept so far (a long run measures memory without them).</summary>
    public void Clear() => _events.Clear();

    public string RenderAll(IFormatProvider? formatProvider = null)
    {
        using var writer = new StringWriter();
        var json = new Serilog.Formatting.Json.JsonFormatter(renderMessage: true, formatProvider: formatProvider);
        foreach (var e in _events)
        {
            json.Format(e, writer);
        }

        return writer.ToString();
    }
}
