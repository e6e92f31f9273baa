using System.Globalization;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The local 3-node cluster with its exporters (<c>deploy/local-cluster/exporters.sh up</c>) and a real
/// Prometheus scraping each node's Patroni, PostgreSQL exporter and node exporter every second, as
/// <c>deploy/dashboards/prometheus.yml</c> does. A backup-age gauge is written where the backup job
/// writes it (the node exporters' textfile directory).
/// </summary>
public sealed class MonitoredCluster : IAsyncLifetime
{
    /// <summary>The time the gauge says the last full backup ended.</summary>
    public static readonly long LastBackup = DateTimeOffset.UtcNow.AddHours(-3).ToUnixTimeSeconds();

    public LocalCluster Cluster { get; } = new();

    public PrometheusServer Prometheus { get; private set; } = null!;

    public string ExportersOutput { get; private set; } = string.Empty;

    public async Task InitializeAsync()
    {
        await Cluster.InitializeAsync();
        var postgres = LoopbackPorts.FreeRun(3);
        var node = LoopbackPorts.FreeRun(3);
        ExportersOutput = await Cluster.ExportersAsync(postgres, node, "up");
        var textfiles = Path.Combine(Cluster.StateDirectory, "textfile");
        await File.WriteAllTextAsync(
            Path.Combine(textfiles, "kobo_sync_backup.prom"),
            "# TYPE kobo_sync_backup_last_success_timestamp_seconds gauge\n"
            + $"kobo_sync_backup_last_success_timestamp_seconds{{type=\"full\"}} {LastBackup.ToString(CultureInfo.InvariantCulture)}\n");

        static string Targets(IEnumerable<int> ports) => string.Join(", ", ports.Select(p => $"\"127.0.0.1:{p}\""));
        Prometheus = await PrometheusServer.StartAsync($"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: patroni
                static_configs:
                  - targets: [{Targets(Cluster.PatroniRestPorts)}]
              - job_name: postgres
                static_configs:
                  - targets: [{Targets(Enumerable.Range(postgres, 3))}]
              - job_name: node
                static_configs:
                  - targets: [{Targets(Enumerable.Range(node, 3))}]
            """);
        var up = await Prometheus.WaitForValueAsync("count(up == 1)", 9, TimeSpan.FromSeconds(30));
        Assert.True(up == 9, $"not every exporter was scraped: {up} of 9 up\n{ExportersOutput}\n{Prometheus.Output}");
    }

    public async Task DisposeAsync()
    {
        if (Prometheus is not null)
        {
            await Prometheus.DisposeAsync();
        }

        // cluster.sh down stops the exporters too.
        await Cluster.DisposeAsync();
    }
}
