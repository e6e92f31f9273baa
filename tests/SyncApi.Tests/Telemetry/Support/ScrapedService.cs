using Kobo.Sync.SyncApi.Tests.Grpc.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>The service on real Kestrel and a real Prometheus scraping it every second, for one test class.</summary>
public sealed class ScrapedService : IAsyncLifetime
{
    public SyncGrpcTestHost Host { get; } = new();

    public PrometheusServer Prometheus { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        Prometheus = await PrometheusServer.StartAsync(Host.RestAddress);
        var up = await Prometheus.WaitForValueAsync($"up{{job=\"{PrometheusServer.Job}\"}}", 1, TimeSpan.FromSeconds(20));
        Assert.True(up == 1, $"the service was not scraped: up={up}\n{Prometheus.Output}");
    }

    public async Task DisposeAsync()
    {
        await Prometheus.DisposeAsync();
        Host.Dispose();
    }
}
