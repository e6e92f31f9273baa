using System.Globalization;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The dashboard's database panels (replication lag, connections, transactions and WAL, archiving and
/// backup age, disk) against a real Prometheus scraping the local cluster's Patroni and the exporters
/// that <c>deploy/local-cluster/exporters.sh</c> starts beside each node.
/// </summary>
[Collection(ClusterCollection.Name)]
public sealed class DatabaseDashboardTests(MonitoredCluster monitored, ITestOutputHelper output) : IClassFixture<MonitoredCluster>
{
    private static readonly TimeSpan ScrapeWait = TimeSpan.FromSeconds(30);

    /// <summary>Panels' queries that answer only while something happens: the time until full of a file system that is filling.</summary>
    private static readonly string[] MayBeEmpty = ["deriv(node_filesystem_avail_bytes"];

    [Fact]
    public async Task EveryDatabasePanelQueryFindsItsSeriesOnTheCluster()
    {
        using var dashboard = Dashboard.Load();
        var database = Dashboard.Expressions(dashboard).Where(e => Dashboard.ReadsTheDatabaseExporters(e.Expression) || e.Expression.Contains("kobo_sync_backup_", StringComparison.Ordinal)).ToList();
        Assert.True(database.Count >= 10, $"only {database.Count} database expressions in {Dashboard.PathInRepository}");
        foreach (var title in new[]
                 {
                     "Replication lag per standby", "Connections against max_connections", "Transactions and WAL per second",
                     "WAL archiving: archived and failed", "Age of the last archived segment and of the last backup", "Disk use and time until full",
                 })
        {
            Assert.Contains(database, e => e.Where == title);
        }

        foreach (var (panel, expression) in database)
        {
            var sent = Dashboard.AsSent(expression, dashboard);
            var series = await SeriesAsync(sent, mustFind: !MayBeEmpty.Any(expression.Contains));
            output.WriteLine($"{panel}: {series.GetArrayLength()} series  {expression}");
            Assert.True(
                series.GetArrayLength() > 0 || MayBeEmpty.Any(expression.Contains),
                $"panel '{panel}': {sent} finds no series\n{monitored.Prometheus.Output}");
        }
    }

    [Fact]
    public async Task ThePanelsShowTwoStandbysConnectionsUnderTheirLimitAndTheBackupsAge()
    {
        var lag = await SeriesAsync("max by (application_name, state) (pg_stat_replication_pg_wal_lsn_diff)", mustFind: true);
        Assert.Equal(2, lag.GetArrayLength());
        Assert.All(lag.EnumerateArray(), s => Assert.Equal("streaming", s.GetProperty("metric").GetProperty("state").GetString()));

        var limit = await SeriesAsync("max by (instance) (pg_settings_max_connections)", mustFind: true);
        Assert.Equal(3, limit.GetArrayLength());
        var connected = await SeriesAsync("sum by (instance) (pg_stat_database_numbackends)", mustFind: true);
        Assert.All(connected.EnumerateArray(), s => Assert.InRange(Value(s), 1, 200));
        Assert.All(limit.EnumerateArray(), s => Assert.Equal(200, Value(s)));

        var backup = await SeriesAsync("time() - max by (type) (kobo_sync_backup_last_success_timestamp_seconds)", mustFind: true);
        Assert.Equal("full", backup[0].GetProperty("metric").GetProperty("type").GetString());
        Assert.InRange(Value(backup[0]), 3 * 3600 - 60, 3 * 3600 + 600);
    }

    private async Task<JsonElement> SeriesAsync(string promql, bool mustFind)
    {
        var deadline = DateTime.UtcNow + ScrapeWait;
        while (true)
        {
            var (success, answer) = await monitored.Prometheus.QueryAsync(promql);
            Assert.True(success, $"{promql}: {answer}");
            var result = answer.GetProperty("data").GetProperty("result");
            if (result.GetArrayLength() > 0 || !mustFind || DateTime.UtcNow > deadline)
            {
                return result.Clone();
            }

            await Task.Delay(500);
        }
    }

    private static double Value(JsonElement series) =>
        double.Parse(series.GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture);
}
