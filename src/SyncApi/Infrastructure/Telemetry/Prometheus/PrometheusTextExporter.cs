using System.Globalization;
using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;

/// <summary>
/// Writes a collection of OpenTelemetry metrics in the Prometheus text exposition format 0.0.4
/// (prometheus/docs content/docs/instrumenting/exposition_formats.md): one <c># HELP</c> and
/// <c># TYPE</c> per family, monotonic sums as counters, non-monotonic sums and gauges as gauges,
/// explicit-bucket histograms as cumulative <c>_bucket{le=...}</c> plus <c>_sum</c> and <c>_count</c>.
/// A pull exporter: the SDK calls <see cref="Export"/> on the scraping thread, inside
/// <see cref="PrometheusScrapeReader.Scrape"/>. Metrics from different meters that map to the same
/// family name are written under one header; a later one of a different type is left out, since
/// a family has one type.
/// </summary>
[ExportModes(ExportModes.Pull)]
public sealed class PrometheusTextExporter : BaseExporter<Metric>, IPullMetricExporter
{
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    private readonly StringBuilder _text = new(16 * 1024);

    /// <summary>Set by the reader: runs a collection that ends in <see cref="Export"/> (only this way may a pull exporter collect).</summary>
    public Func<int, bool>? Collect { get; set; }

    /// <summary>The text of the last collection; read and cleared under the reader's lock.</summary>
    internal string TakeText()
    {
        var text = _text.ToString();
        _text.Clear();
        return text;
    }

    public override ExportResult Export(in Batch<Metric> batch)
    {
        var families = new Dictionary<string, Family>(StringComparer.Ordinal);
        var order = new List<Family>();
        foreach (var metric in batch)
        {
            var kind = KindOf(metric.MetricType);
            if (kind is null)
            {
                continue;
            }

            var name = PrometheusNames.MetricName(metric.Name, metric.Unit, kind == "counter", kind == "gauge");
            if (!families.TryGetValue(name, out var family))
            {
                family = new Family(name, kind, Help(metric));
                families.Add(name, family);
                order.Add(family);
            }
            else if (family.Kind != kind)
            {
                continue;
            }

            WritePoints(family.Samples, name, kind, metric);
        }

        foreach (var family in order)
        {
            if (family.Samples.Length == 0)
            {
                continue;
            }

            _text.Append("# HELP ").Append(family.Name).Append(' ').Append(EscapeHelp(family.Help)).Append('\n');
            _text.Append("# TYPE ").Append(family.Name).Append(' ').Append(family.Kind).Append('\n');
            _text.Append(family.Samples);
        }

        return ExportResult.Success;
    }

    private static string? KindOf(MetricType type) => type switch
    {
        MetricType.LongSum or MetricType.DoubleSum => "counter",
        MetricType.LongSumNonMonotonic or MetricType.DoubleSumNonMonotonic or MetricType.LongGauge or MetricType.DoubleGauge => "gauge",
        MetricType.Histogram => "histogram",
        // Exponential histograms have no 0.0.4 form; the SDK only makes them when a view asks.
        _ => null,
    };

    private static string Help(Metric metric) =>
        string.IsNullOrWhiteSpace(metric.Description) ? $"{metric.Name} ({metric.MeterName})" : metric.Description;

    private static void WritePoints(StringBuilder samples, string name, string kind, Metric metric)
    {
        foreach (ref readonly var point in metric.GetMetricPoints())
        {
            var labels = Labels(point.Tags);
            switch (metric.MetricType)
            {
                case MetricType.LongSum or MetricType.LongSumNonMonotonic:
                    Sample(samples, name, labels, null, Number(point.GetSumLong()));
                    break;
                case MetricType.DoubleSum or MetricType.DoubleSumNonMonotonic:
                    Sample(samples, name, labels, null, Number(point.GetSumDouble()));
                    break;
                case MetricType.LongGauge:
                    Sample(samples, name, labels, null, Number(point.GetGaugeLastValueLong()));
                    break;
                case MetricType.DoubleGauge:
                    Sample(samples, name, labels, null, Number(point.GetGaugeLastValueDouble()));
                    break;
                case MetricType.Histogram when kind == "histogram":
                    WriteHistogram(samples, name, labels, in point);
                    break;
            }
        }
    }

    private static void WriteHistogram(StringBuilder samples, string name, string labels, in MetricPoint point)
    {
        long cumulative = 0;
        var wroteInfinity = false;
        foreach (var bucket in point.GetHistogramBuckets())
        {
            cumulative += bucket.BucketCount;
            var le = double.IsPositiveInfinity(bucket.ExplicitBound) ? "+Inf" : Number(bucket.ExplicitBound);
            wroteInfinity |= le == "+Inf";
            Sample(samples, name + "_bucket", labels, le, Number(cumulative));
        }

        var count = point.GetHistogramCount();
        if (!wroteInfinity)
        {
            Sample(samples, name + "_bucket", labels, "+Inf", Number(count));
        }

        Sample(samples, name + "_sum", labels, null, Number(point.GetHistogramSum()));
        Sample(samples, name + "_count", labels, null, Number(count));
    }

    private static void Sample(StringBuilder samples, string name, string labels, string? le, string value)
    {
        samples.Append(name);
        if (labels.Length > 0 || le is not null)
        {
            samples.Append('{').Append(labels);
            if (le is not null)
            {
                samples.Append(labels.Length > 0 ? "," : string.Empty).Append("le=\"").Append(le).Append('"');
            }

            samples.Append('}');
        }

        samples.Append(' ').Append(value).Append('\n');
    }

    private static string Labels(ReadOnlyTagCollection tags)
    {
        if (tags.Count == 0)
        {
            return string.Empty;
        }

        // Keys that sanitize to the same label name have their values joined with ';' (as the specification asks).
        var labels = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var tag in tags)
        {
            var key = PrometheusNames.LabelName(tag.Key);
            var value = TagValue(tag.Value);
            labels[key] = labels.TryGetValue(key, out var existing) ? existing + ";" + value : value;
        }

        var text = new StringBuilder();
        foreach (var (key, value) in labels)
        {
            if (text.Length > 0)
            {
                text.Append(',');
            }

            text.Append(key).Append("=\"").Append(EscapeLabelValue(value)).Append('"');
        }

        return text.ToString();
    }

    private static string TagValue(object? value) => value switch
    {
        null => string.Empty,
        string s => s,
        bool b => b ? "true" : "false",
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };

    internal static string Number(double value) =>
        double.IsNaN(value) ? "NaN"
        : double.IsPositiveInfinity(value) ? "+Inf"
        : double.IsNegativeInfinity(value) ? "-Inf"
        : value.ToString("R", CultureInfo.InvariantCulture);

    private static string Number(long value) => value.ToString(CultureInfo.InvariantCulture);

    internal static string EscapeLabelValue(string value) =>
        value.Replace("\\", "\\\\", StringComparison.Ordinal)
            .Replace("\"", "\\\"", StringComparison.Ordinal)
            .Replace("\n", "\\n", StringComparison.Ordinal);

    internal static string EscapeHelp(string help) =>
        help.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal);

    private sealed class Family(string name, string kind, string help)
    {
        public string Name { get; } = name;
        public string Kind { get; } = kind;
        public string Help { get; } = help;
        public StringBuilder Samples { get; } = new();
    }
}
