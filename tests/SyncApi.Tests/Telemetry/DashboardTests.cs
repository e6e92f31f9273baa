using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>The Grafana dashboard under deploy/dashboards, checked against a real Prometheus scraping the running service.</summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed partial class DashboardTests(ScrapedService service) : IClassFixture<ScrapedService>
{
    private static readonly TimeSpan ScrapeWait = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task EveryDashboardQueryParsesAndRunsInPrometheusAndTheRequestPanelsShowTraffic()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        await DeviceTraffic.MixedAsync(service.Host, user);
        using var dashboard = Dashboard.Load();
        var expressions = Dashboard.Expressions(dashboard).ToList();
        Assert.True(expressions.Count >= 20, $"only {expressions.Count} expressions in {Dashboard.PathInRepository}");

        foreach (var (panel, expression) in expressions)
        {
            var (success, answer) = await service.Prometheus.QueryAsync(Dashboard.AsSent(expression, dashboard));
            Assert.True(success, $"panel '{panel}': {expression}\n{answer}");
        }

        // Once Prometheus holds the traffic, the request rate panel has series.
        var rate = expressions.Single(e => e.Where == "Request rate by endpoint and protocol").Expression;
        var deadline = DateTime.UtcNow + ScrapeWait;
        int series;
        do
        {
            await Task.Delay(500);
            var (_, answer) = await service.Prometheus.QueryAsync(Dashboard.AsSent(rate, dashboard));
            series = answer.GetProperty("data").GetProperty("result").GetArrayLength();
        }
        while (series == 0 && DateTime.UtcNow < deadline);

        Assert.True(series > 0, "the request rate panel shows nothing after traffic");
    }

    [Fact]
    public async Task EveryDashboardQueryOfALibraryMetricFindsItsSeries()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        await DeviceTraffic.MixedAsync(service.Host, user);
        using var dashboard = Dashboard.Load();
        // The instrumentation packages name these metrics; the service's own (kobo_sync_*) need their traffic.
        var library = Dashboard.Expressions(dashboard)
            .Where(e => !e.Expression.Contains("kobo_sync_", StringComparison.Ordinal) && !e.Expression.StartsWith("up{", StringComparison.Ordinal))
            .Where(e => !Dashboard.ReadsTheDatabaseExporters(e.Expression))
            .ToList();
        Assert.True(library.Count >= 5, $"only {library.Count} library expressions in {Dashboard.PathInRepository}");

        foreach (var (panel, expression) in library)
        {
            var deadline = DateTime.UtcNow + ScrapeWait;
            int series;
            do
            {
                var (_, answer) = await service.Prometheus.QueryAsync(Dashboard.AsSent(expression, dashboard));
                series = answer.GetProperty("data").GetProperty("result").GetArrayLength();
                if (series == 0)
                {
                    await Task.Delay(500);
                }
            }
            while (series == 0 && DateTime.UtcNow < deadline);

            Assert.True(series > 0, $"panel '{panel}': {expression} finds no series");
        }
    }

    [Fact]
    public void EveryLivePullMetricInTheOperationsGuideHasAPanel()
    {
        using var dashboard = Dashboard.Load();
        var queries = string.Join('\n', Dashboard.Expressions(dashboard).Select(e => e.Expression));
        var guide = File.ReadAllText(Path.Combine(Dashboard.RepositoryRoot(), "docs", "operations.md"));
        var live = LiveMetricRow().Matches(guide).Select(m => m.Groups[1].Value).ToList();
        Assert.True(live.Count >= 7, $"only {live.Count} live pull metrics in docs/operations.md");

        Assert.All(live, metric => Assert.Contains(metric, queries, StringComparison.Ordinal));
    }

    [Fact]
    public void EveryLatencyPanelDrawsTheSlaLineAt200Milliseconds()
    {
        using var dashboard = Dashboard.Load();
        var latency = Dashboard.Panels(dashboard)
            .Where(p => p.GetProperty("type").GetString() == "timeseries"
                && p.GetProperty("targets").EnumerateArray().Any(t => t.GetProperty("expr").GetString()!.Contains("kobo_sync_request_duration_seconds_bucket", StringComparison.Ordinal)))
            .ToList();

        Assert.True(latency.Count >= 3);
        Assert.All(latency, panel =>
        {
            var defaults = panel.GetProperty("fieldConfig").GetProperty("defaults");
            Assert.Equal("s", defaults.GetProperty("unit").GetString());
            Assert.Contains(defaults.GetProperty("thresholds").GetProperty("steps").EnumerateArray(), s => s.GetProperty("value").ValueKind == System.Text.Json.JsonValueKind.Number && s.GetProperty("value").GetDouble() == 0.2);
            Assert.StartsWith("line", defaults.GetProperty("custom").GetProperty("thresholdsStyle").GetProperty("mode").GetString(), StringComparison.Ordinal);
        });
        Assert.Contains(latency, p => p.GetProperty("title").GetString()!.Contains("REST", StringComparison.Ordinal));
        Assert.Contains(latency, p => p.GetProperty("title").GetString()!.Contains("gRPC", StringComparison.Ordinal));
    }

    /// <summary>A row of the operations guide's metrics table naming a live pull metric.</summary>
    [System.Text.RegularExpressions.GeneratedRegex(@"^\| `(kobo_sync_live_[a-z_]+)`", System.Text.RegularExpressions.RegexOptions.Multiline)]
    private static partial System.Text.RegularExpressions.Regex LiveMetricRow();
}
