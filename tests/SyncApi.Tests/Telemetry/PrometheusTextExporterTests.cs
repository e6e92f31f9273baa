using System.Diagnostics.Metrics;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

public sealed class PrometheusTextExporterTests : IDisposable
{
    // A meter name no other test uses, so nothing else records into it.
    private readonly Meter _meter = new($"Exporter.Tests.{Guid.NewGuid():N}");
    private readonly PrometheusScrapeReader _reader = new();
    private readonly OpenTelemetrySdk _sdk;

    public PrometheusTextExporterTests() =>
        _sdk = OpenTelemetrySdk.Create(otel => otel.WithMetrics(metrics => metrics.AddMeter(_meter.Name).AddReader(_reader)));

    [Theory]
    [InlineData("http.server.request.duration", "s", false, false, "http_server_request_duration_seconds")]
    [InlineData("kobo.sync.requests", "{request}", true, false, "kobo_sync_requests_total")]
    [InlineData("dotnet.gc.heap.total_allocated", "By", true, false, "dotnet_gc_heap_total_allocated_bytes_total")]
    [InlineData("queue.fill", "1", false, true, "queue_fill_ratio")]
    [InlineData("net.throughput", "By/s", false, true, "net_throughput_bytes_per_second")]
    [InlineData("already_seconds", "s", false, false, "already_seconds")]
    [InlineData("jobs_total", "{job}", true, false, "jobs_total")]
    [InlineData("9lives..weird-name", "", false, true, "_9lives_weird_name")]
    public void OpenTelemetryNamesBecomePrometheusNamesWithUnitAndTotalSuffixes(
        string name, string unit, bool isCounter, bool isGauge, string expected) =>
        Assert.Equal(expected, PrometheusNames.MetricName(name, unit, isCounter, isGauge));

    [Fact]
    public void LabelValuesAreEscapedAndLabelNamesSanitized()
    {
        _meter.CreateCounter<long>("escape.check").Add(1, new KeyValuePair<string, object?>("odd.key", "a\"b\\c\nd"));

        var text = _reader.Scrape()!;

        Assert.Contains("escape_check_total{odd_key=\"a\\\"b\\\\c\\nd\"} 1\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void HistogramBucketsAreCumulativeAndEndWithInfinityThenSumAndCount()
    {
        var histogram = _meter.CreateHistogram("latency", "s", "Latency.", advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 0.2] });
        histogram.Record(0.05);
        histogram.Record(0.15);
        histogram.Record(0.15);
        histogram.Record(7);

        var text = _reader.Scrape()!;

        Assert.Contains(
            "# HELP latency_seconds Latency.\n# TYPE latency_seconds histogram\n" +
            "latency_seconds_bucket{le=\"0.1\"} 1\nlatency_seconds_bucket{le=\"0.2\"} 3\nlatency_seconds_bucket{le=\"+Inf\"} 4\n" +
            "latency_seconds_sum 7.35\nlatency_seconds_count 4\n",
            text,
            StringComparison.Ordinal);
    }

    [Fact]
    public async Task UpDownCountersAndGaugesAreGaugesAndTheWholeTextPassesPromtool()
    {
        _meter.CreateUpDownCounter<int>("queue.depth", "{item}", "Items waiting.").Add(3);
        _meter.CreateObservableGauge("pool.fill", () => 0.25, "1", "Share of the pool in use.");
        _meter.CreateCounter<double>("work.done", "s", "Seconds of work\nwith a \\ in the help.").Add(1.5);

        var text = _reader.Scrape()!;
        var (exitCode, output) = await PrometheusTools.CheckMetricsAsync(text);

        Assert.Contains("# TYPE queue_depth gauge\nqueue_depth 3\n", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE pool_fill_ratio gauge\npool_fill_ratio 0.25\n", text, StringComparison.Ordinal);
        Assert.Contains("# HELP work_done_seconds_total Seconds of work\\nwith a \\\\ in the help.\n", text, StringComparison.Ordinal);
        Assert.True(exitCode == 0, output + "\n" + text);
    }

    public void Dispose()
    {
        _sdk.Dispose();
        _meter.Dispose();
    }
}
