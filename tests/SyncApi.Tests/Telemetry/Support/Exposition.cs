using System.Globalization;
using System.Text.RegularExpressions;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>Reads samples out of a Prometheus text exposition.</summary>
public static partial class Exposition
{
    /// <summary>The value of the sample <paramref name="name"/> whose labels include all of <paramref name="labels"/>, summed over the rest.</summary>
    public static double Sum(string text, string name, params (string Label, string Value)[] labels)
    {
        var total = 0.0;
        foreach (var (sampleName, sampleLabels, value) in Samples(text))
        {
            if (sampleName == name && labels.All(l => sampleLabels.TryGetValue(l.Label, out var v) && v == l.Value))
            {
                total += value;
            }
        }

        return total;
    }

    public static IEnumerable<(string Name, Dictionary<string, string> Labels, double Value)> Samples(string text)
    {
        foreach (var line in text.Split('\n'))
        {
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            var match = SampleLine().Match(line);
            Assert.True(match.Success, $"not a sample line: {line}");
            var labels = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (Match label in LabelPair().Matches(match.Groups["labels"].Value))
            {
                labels[label.Groups["name"].Value] = label.Groups["value"].Value;
            }

            var raw = match.Groups["value"].Value;
            var value = raw switch { "+Inf" => double.PositiveInfinity, "-Inf" => double.NegativeInfinity, _ => double.Parse(raw, CultureInfo.InvariantCulture) };
            yield return (match.Groups["name"].Value, labels, value);
        }
    }

    [GeneratedRegex("""^(?<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?<labels>.*)\})? (?<value>\S+)$""")]
    private static partial Regex SampleLine();

    [GeneratedRegex(""""(?<name>[a-zA-Z_][a-zA-Z0-9_]*)="(?<value>(\\.|[^"\\])*)"""")]
    private static partial Regex LabelPair();
}
