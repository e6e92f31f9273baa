using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Serilog.Events;
using Serilog.Formatting.Json;
using Serilog.Parsing;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Logging;

[Trait("Category", "Fast")]
public sealed class ProductionJsonFormatterTests
{
    public static TheoryData<string> Events => ["request line", "quotes and controls", "structures", "exception", "no properties"];

    [Theory]
    [MemberData(nameof(Events))]
    public void ALineHasSerilogsJsonFieldsAndValuesWithoutTheRenderings(string name)
    {
        var logEvent = Event(name);

        var ours = JsonNode.Parse(Format(new ProductionJsonFormatter(), logEvent))!.AsObject();
        var serilogs = JsonNode.Parse(Format(new JsonFormatter(renderMessage: true, formatProvider: CultureInfo.InvariantCulture), logEvent))!.AsObject();
        serilogs.Remove("Renderings");

        Assert.Equal(serilogs.Select(p => p.Key), ours.Select(p => p.Key));
        Assert.True(JsonNode.DeepEquals(serilogs, ours), $"ours:     {ours.ToJsonString()}\nserilog's: {serilogs.ToJsonString()}");
    }

    [Fact]
    public void EachEventIsOneLineAndTheFormatterCanBeReused()
    {
        var formatter = new ProductionJsonFormatter();
        using var output = new StringWriter(CultureInfo.InvariantCulture);

        formatter.Format(Event("quotes and controls"), output);
        formatter.Format(Event("request line"), output);

        var lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.Equal("HTTP/1.1 GET /v1/users/{userNo} responded 200 in 1.2 ms", JsonDocument.Parse(lines[1]).RootElement.GetProperty("RenderedMessage").GetString());
    }

    private static string Format(Serilog.Formatting.ITextFormatter formatter, LogEvent logEvent)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        formatter.Format(logEvent, output);
        var text = output.ToString();
        Assert.EndsWith(Environment.NewLine, text, StringComparison.Ordinal);
        return text;
    }

    private static LogEvent Event(string name)
    {
        var at = new DateTimeOffset(2026, 11, 23, 15, 4, 5, 123, TimeSpan.Zero).AddTicks(4567);
        var trace = ActivityTraceId.CreateFromString("0af7651916cd43dd8448eb211c80319c");
        var span = ActivitySpanId.CreateFromString("b7ad6b7169203331");
        return name switch
        {
            "request line" => Make(
                LogEventLevel.Information, "{Protocol:l} {Method:l} {Route:l} responded {StatusCode} in {ElapsedMs:0.0} ms", null,
                ("Protocol", new ScalarValue("HTTP/1.1")), ("Method", new ScalarValue("GET")), ("Route", new ScalarValue("/v1/users/{userNo}")),
                ("StatusCode", new ScalarValue(200)), ("ElapsedMs", new ScalarValue(1.2345))),
            "quotes and controls" => Make(
                LogEventLevel.Warning, "Device {DeviceId} said {Text}", null,
                ("DeviceId", new ScalarValue("reader \"one\"\\")), ("Text", new ScalarValue("line\nbreak\ttab\u0001 é ✓"))),
            "structures" => Make(
                LogEventLevel.Debug, "Batch {@Batch} of {Ids}", null,
                ("Batch", new StructureValue([new LogEventProperty("Size", new ScalarValue(3)), new LogEventProperty("At", new ScalarValue(at))], "CoalescedBatch")),
                ("Ids", new SequenceValue([new ScalarValue(1L), new ScalarValue(null), new ScalarValue(true)]))),
            "exception" => Make(
                LogEventLevel.Error, "Call failed after {Attempts} attempts", new InvalidOperationException("broken \"pipe\""),
                ("Attempts", new ScalarValue(3))),
            _ => Make(LogEventLevel.Fatal, "Stopping", null),
        };

        LogEvent Make(LogEventLevel level, string template, Exception? error, params (string Name, LogEventPropertyValue Value)[] properties) =>
            new(at, level, error, new MessageTemplateParser().Parse(template),
                properties.Select(p => new LogEventProperty(p.Name, p.Value)), trace, span);
    }
}
