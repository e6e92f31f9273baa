using OpenTelemetry.Metrics;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;

/// <summary>
/// Renames, through SDK views, the few library instruments whose Prometheus names break the
/// exposition rules <c>promtool check metrics</c> enforces (a gauge may not end in <c>_count</c>,
/// which Prometheus reserves for histograms and summaries).
/// </summary>
public static class PrometheusViews
{
    public static readonly IReadOnlyDictionary<string, string> Renames = new Dictionary<string, string>(StringComparer.Ordinal)
    {
        ["db.client.connection.count"] = "db.client.connections",
        ["dotnet.assembly.count"] = "dotnet.assemblies",
        ["dotnet.process.cpu.count"] = "dotnet.process.cpus",
        ["dotnet.timer.count"] = "dotnet.timers",
    };

    public static MeterProviderBuilder Apply(MeterProviderBuilder metrics)
    {
        foreach (var (instrument, name) in Renames)
        {
            metrics.AddView(instrument, name);
        }

        return metrics;
    }
}
