using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// Database call pipelines (timeout from the request budget, retry, circuit breaker), the per-request budget, the shutdown drain.
/// </summary>
public static class ResilienceExtensions
{
    /// <summary>Idempotent: storage registers it too, since every database call runs in these pipelines.</summary>
    public static WebApplicationBuilder AddResilience(this WebApplicationBuilder builder)
    {
        var services = builder.Services;
        if (services.Any(d => d.ServiceType == typeof(StoragePipelines)))
        {
            return builder;
        }

        services.AddValidatedOptions<ResilienceOptions, ResilienceOptionsValidator>(ResilienceOptions.SectionName);
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton<IResilienceEvents, LoggingResilienceEvents>();
        services.AddSingleton(sp => new StoragePipelines(
            sp.GetRequiredService<IOptions<ResilienceOptions>>(),
            sp.GetRequiredService<IResilienceEvents>(),
            sp.GetRequiredService<TimeProvider>(),
            separateReadSource: !string.IsNullOrWhiteSpace(sp.GetRequiredService<IOptions<StorageOptions>>().Value.ReadConnectionString),
            dropConnections: () =>
            {
                sp.GetService<NpgsqlDataSource>()?.Clear();
                sp.GetKeyedService<NpgsqlDataSource>(StorageDataSource.ReadKey)?.Clear();
            }));

        // Graceful shutdown: Kestrel stops accepting and drains the requests in flight for this long.
        services.AddOptions<HostOptions>().Configure<IOptions<ResilienceOptions>>((host, resilience) =>
            host.ShutdownTimeout = TimeSpan.FromMilliseconds(resilience.Value.ShutdownDrainMs));
        return builder;
    }

    public static WebApplication UseResilience(this WebApplication app)
    {
        app.UseMiddleware<RequestBudgetMiddleware>();
        return app;
    }
}
