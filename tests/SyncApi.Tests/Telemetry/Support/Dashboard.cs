using System.Text.Json;
using System.Text.RegularExpressions;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>The Grafana dashboard under deploy/dashboards: its panels and their PromQL, with Grafana's variables filled in.</summary>
public static partial class Dashboard
{
    public static string PathInRepository => Path.Combine(RepositoryRoot(), "deploy", "dashboards", "kobo-sync.json");

    public static JsonDocument Load() => JsonDocument.Parse(File.ReadAllText(PathInRepository));

    public static IEnumerable<JsonElement> Panels(JsonDocument dashboard) =>
        dashboard.RootElement.GetProperty("panels").EnumerateArray().Where(p => p.GetProperty("type").GetString() != "row");

    /// <summary>(panel title, expression) for every query of every panel and templating variable.</summary>
    public static IEnumerable<(string Where, string Expression)> Expressions(JsonDocument dashboard)
    {
        foreach (var panel in Panels(dashboard))
        {
            foreach (var target in panel.GetProperty("targets").EnumerateArray())
            {
                yield return (panel.GetProperty("title").GetString()!, target.GetProperty("expr").GetString()!);
            }
        }
    }

    /// <summary>
    /// Whether <paramref name="expression"/> reads what runs beside the database nodes (the PostgreSQL
    /// and node exporters, Patroni): those panels are checked against a cluster (<c>Cluster/DatabaseDashboardTests</c>).
    /// </summary>
    public static bool ReadsTheDatabaseExporters(string expression) => ExporterMetric().IsMatch(expression);

    /// <summary>What Grafana sends: its interval macros become a duration, a multi-value variable "All" becomes ".*".</summary>
    public static string AsSent(string expression, JsonDocument dashboard)
    {
        var sent = Macro().Replace(expression, "1m");
        foreach (var variable in dashboard.RootElement.GetProperty("templating").GetProperty("list").EnumerateArray())
        {
            var name = variable.GetProperty("name").GetString()!;
            sent = sent.Replace("${" + name + "}", ".*", StringComparison.Ordinal).Replace("$" + name, ".*", StringComparison.Ordinal);
        }

        Assert.DoesNotContain("$", sent, StringComparison.Ordinal);
        return sent;
    }

    [GeneratedRegex(@"\b(pg|node|patroni)_[a-z_]+")]
    private static partial Regex ExporterMetric();

    [GeneratedRegex(@"\$__(rate_interval|interval|range)")]
    private static partial Regex Macro();

    public static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Kobo.Sync.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No Kobo.Sync.sln above {AppContext.BaseDirectory}.");
    }
}
