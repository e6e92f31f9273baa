using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>A real Prometheus scrapes the running service; what it stored is read back through its query API.</summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class PrometheusScrapeTests(ScrapedService service) : IClassFixture<ScrapedService>
{
    private static readonly TimeSpan ScrapeWait = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task PrometheusStoresTheRequestCounterAndLatencyHistogramWithTheRightCounts()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        var (host, prometheus) = (service.Host, service.Prometheus);

        using var device = DeviceTraffic.Rest(host, user);
        for (var i = 0; i < 7; i++)
        {
            Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));
        }

        for (var i = 0; i < 4; i++)
        {
            await DeviceTraffic.GrpcListUserHighlightsAsync(host, user);
        }

        const string rest = "endpoint=\"GetUser\",protocol=\"rest\"";
        const string grpc = "endpoint=\"ListUserHighlights\",protocol=\"grpc\"";
        Assert.Equal(7, await prometheus.WaitForValueAsync($"kobo_sync_requests_total{{{rest},outcome=\"ok\"}}", 7, ScrapeWait));
        Assert.Equal(4, await prometheus.WaitForValueAsync($"kobo_sync_requests_total{{{grpc},outcome=\"ok\"}}", 4, ScrapeWait));
        Assert.Equal(7, await prometheus.ValueAsync($"kobo_sync_request_duration_seconds_count{{{rest}}}"));
        Assert.Equal(7, await prometheus.ValueAsync($"kobo_sync_request_duration_seconds_bucket{{{rest},le=\"+Inf\"}}"));
        Assert.Equal(4, await prometheus.ValueAsync($"kobo_sync_request_duration_seconds_count{{{grpc}}}"));
        Assert.Equal(4, await prometheus.ValueAsync($"kobo_sync_highlights_per_page_count{{{grpc}}}"));
        // The buckets Prometheus stored answer a quantile within the histogram's range.
        var p99 = await prometheus.ValueAsync($"histogram_quantile(0.99, kobo_sync_request_duration_seconds_bucket{{{rest}}})");
        Assert.InRange(p99!.Value, 0, 10);
    }
}
