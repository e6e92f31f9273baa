using OpenTelemetry.Metrics;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;

/// <summary>
/// The metric reader behind <c>/metrics</c>: each scrape collects the SDK's cumulative state and
/// returns it as Prometheus text. Scrapes are serialized (one collection at a time); Prometheus
/// scrapes every 15 s or so, so a scrape never waits long.
/// </summary>
public sealed class PrometheusScrapeReader : BaseExportingMetricReader
{
    private const int CollectTimeoutMilliseconds = 5_000;

    private readonly PrometheusTextExporter _exporter;
    private readonly Lock _scrape = new();

    public PrometheusScrapeReader()
        : this(new PrometheusTextExporter())
    {
    }

    private PrometheusScrapeReader(PrometheusTextExporter exporter)
        : base(exporter)
    {
        _exporter = exporter;
        TemporalityPreference = MetricReaderTemporalityPreference.Cumulative;
    }

    /// <summary>The current metrics in the text format; null when the SDK is shut down or did not answer in time.</summary>
    public string? Scrape()
    {
        lock (_scrape)
        {
            _exporter.TakeText();
            return _exporter.Collect?.Invoke(CollectTimeoutMilliseconds) == true ? _exporter.TakeText() : null;
        }
    }
}
