using OpenTelemetry.Exporter;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// <c>GET /metrics</c>: the Prometheus scrape target, served by OpenTelemetry's Prometheus exporter
/// (text format 0.0.4, or OpenMetrics when the scraper asks for it, as Prometheus does). Anonymous
/// (scrapers carry no device token; keep the port off the internet, as the load balancer does), and
/// left out of request metrics, ASP.NET Core's HTTP metrics, request spans and logs, so scraping does
/// not show up as traffic.
/// </summary>
internal static class MetricsEndpoint
{
    public const string Path = "/metrics";

    /// <summary>The exporter's options: every scrape collects afresh (the default would answer from a 300 ms cache).</summary>
    public static void Configure(PrometheusAspNetCoreOptions options)
    {
        options.ScrapeEndpointPath = Path;
        options.ScrapeResponseCacheDurationMilliseconds = 0;
    }

    public static IEndpointConventionBuilder MapMetrics(this IEndpointRouteBuilder endpoints) =>
        endpoints.MapPrometheusScrapingEndpoint(Path)
            .AllowAnonymous()
            .ExcludeFromDescription()
            .DisableHttpMetrics()
            .WithMetadata(ExcludeFromRequestTelemetry.Instance);

    /// <summary>A scrape, known before routing (for the request span's filter).</summary>
    public static bool IsScrape(HttpRequest request) => request.Path.Equals(Path, StringComparison.OrdinalIgnoreCase);
}
