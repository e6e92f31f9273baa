using System.Text;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;

/// <summary>
/// OpenTelemetry-to-Prometheus naming (OpenTelemetry specification, "Prometheus and OpenMetrics
/// Compatibility"): invalid characters become <c>_</c>, the unit becomes a suffix in words
/// (<c>s</c> -> <c>_seconds</c>, <c>By</c> -> <c>_bytes</c>, <c>{request}</c> annotations dropped,
/// <c>x/y</c> -> <c>_x_per_y</c>), counters end in <c>_total</c>.
/// </summary>
public static class PrometheusNames
{
    private static readonly Dictionary<string, string> Units = new(StringComparer.Ordinal)
    {
        ["d"] = "days", ["h"] = "hours", ["min"] = "minutes", ["s"] = "seconds", ["ms"] = "milliseconds",
        ["us"] = "microseconds", ["ns"] = "nanoseconds", ["By"] = "bytes", ["KiBy"] = "kibibytes",
        ["MiBy"] = "mebibytes", ["GiBy"] = "gibibytes", ["TiBy"] = "tebibytes", ["KBy"] = "kilobytes",
        ["MBy"] = "megabytes", ["GBy"] = "gigabytes", ["TBy"] = "terabytes", ["m"] = "meters", ["V"] = "volts",
        ["A"] = "amperes", ["J"] = "joules", ["W"] = "watts", ["g"] = "grams", ["Cel"] = "celsius",
        ["Hz"] = "hertz", ["%"] = "percent",
    };

    private static readonly Dictionary<string, string> PerUnits = new(StringComparer.Ordinal)
    {
        ["s"] = "second", ["m"] = "minute", ["h"] = "hour", ["d"] = "day", ["w"] = "week", ["mo"] = "month", ["y"] = "year",
    };

    /// <summary>The metric family name: sanitized name, unit suffix, and <c>_total</c> for a counter.</summary>
    public static string MetricName(string name, string? unit, bool isCounter, bool isGauge)
    {
        var result = Sanitize(name, allowColon: true);
        if (isCounter && result.EndsWith("_total", StringComparison.Ordinal))
        {
            result = result[..^"_total".Length];
        }

        var suffix = UnitSuffix(unit, isGauge);
        if (suffix.Length > 0 && !result.EndsWith("_" + suffix, StringComparison.Ordinal))
        {
            result = result + "_" + suffix;
        }

        return isCounter ? result + "_total" : result;
    }

    /// <summary>A label name: <c>[a-zA-Z_][a-zA-Z0-9_]*</c>.</summary>
    public static string LabelName(string key) => Sanitize(key, allowColon: false);

    internal static string UnitSuffix(string? unit, bool isGauge)
    {
        if (string.IsNullOrEmpty(unit))
        {
            return string.Empty;
        }

        // Annotations ({request}, {thread}) say what is counted, not a unit: dropped.
        var withoutAnnotations = new StringBuilder(unit.Length);
        var depth = 0;
        foreach (var c in unit)
        {
            if (c == '{')
            {
                depth++;
            }
            else if (c == '}')
            {
                depth = Math.Max(0, depth - 1);
            }
            else if (depth == 0)
            {
                withoutAnnotations.Append(c);
            }
        }

        var bare = withoutAnnotations.ToString().Trim();
        if (bare.Length == 0)
        {
            return string.Empty;
        }

        if (bare == "1")
        {
            return isGauge ? "ratio" : string.Empty;
        }

        var slash = bare.IndexOf('/', StringComparison.Ordinal);
        if (slash >= 0)
        {
            var over = Word(bare[..slash], Units);
            var per = Word(bare[(slash + 1)..], PerUnits);
            return over.Length == 0 ? (per.Length == 0 ? string.Empty : "per_" + per) : (per.Length == 0 ? over : over + "_per_" + per);
        }

        return Word(bare, Units);
    }

    private static string Word(string unit, Dictionary<string, string> words) =>
        words.TryGetValue(unit, out var word) ? word : Sanitize(unit, allowColon: false).Trim('_');

    private static string Sanitize(string name, bool allowColon)
    {
        var builder = new StringBuilder(name.Length + 1);
        foreach (var c in name)
        {
            var valid = c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '_' || (allowColon && c == ':');
            var next = valid ? c : '_';
            // Runs of underscores collapse to one, as the specification asks.
            if (next == '_' && builder.Length > 0 && builder[^1] == '_')
            {
                continue;
            }

            builder.Append(next);
        }

        if (builder.Length == 0 || char.IsAsciiDigit(builder[0]))
        {
            builder.Insert(0, '_');
        }

        return builder.ToString();
    }
}
