using Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// <c>GET /metrics</c>: the Prometheus scrape target. Anonymous (scrapers carry no device token; keep
/// the port off the internet, as the load balancer does), and left out of request metrics and logs
/// so scraping does not show up as traffic.
/// </summary>
internal static class MetricsEndpoint
{
    public const string Path = "/metrics";

    public static IEndpointConventionBuilder MapMetrics(this IEndpointRouteBuilder endpoints) =>
        endpoints.MapGet(Path, Scrape)
            .AllowAnonymous()
            .ExcludeFromDescription()
            .WithMetadata(ExcludeFromRequestTelemetry.Instance);

    private static async Task Scrape(HttpContext context, PrometheusScrapeReader reader)
    {
        var text = reader.Scrape();
        if (text is null)
        {
            context.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
            return;
        }

        context.Response.ContentType = PrometheusTextExporter.ContentType;
        await context.Response.WriteAsync(text, context.RequestAborted);
    }
}
