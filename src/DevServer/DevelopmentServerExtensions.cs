using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.DevServer.Embedded;
using Kobo.Sync.Storage;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.DevServer;

/// <summary>
/// What a development build adds to storage: the private PostgreSQL server started when
/// <c>Storage:Embedded:Enabled</c> is on and no connection string is set, and the demo data seeded into an
/// empty store when <c>Demo:Seed</c> is on.
/// </summary>
public static class DevelopmentServerExtensions
{
    public static IServiceCollection AddDevelopmentServer(this IServiceCollection services)
    {
        services.AddOptions<DemoOptions>().BindConfiguration(DemoOptions.SectionName);
        services.TryAddSingleton<IEmbeddedServerLauncher>(
            sp => new EmbeddedServerLauncher(sp.GetRequiredService<ILogger<EmbeddedPostgres>>()));
        services.AddSingleton<IStartupSeed, DemoSeed>();
        return services;
    }

    /// <summary>The launcher for callers without a container (the command-line tools).</summary>
    public static IEmbeddedServerLauncher Launcher(ILogger? logger = null) => new EmbeddedServerLauncher(logger);

    private sealed class EmbeddedServerLauncher(ILogger? logger) : IEmbeddedServerLauncher
    {
        public async Task<IEmbeddedServer> StartAsync(EmbeddedStorageOptions options, CancellationToken cancellationToken) =>
            await EmbeddedPostgres.StartAsync(
                new EmbeddedPostgresSettings
                {
                    DataDirectory = options.FullDataDirectory,
                    Port = options.Port,
                    Database = options.Database,
                },
                logger,
                cancellationToken).ConfigureAwait(false);
    }

    private sealed class DemoSeed(IOptions<DemoOptions> options, ILogger<DemoSeeder> logger) : IStartupSeed
    {
        public async Task SeedAsync(NpgsqlDataSource dataSource, CancellationToken cancellationToken)
        {
            if (options.Value.Seed)
            {
                await new DemoSeeder(dataSource, logger).SeedAsync(cancellationToken).ConfigureAwait(false);
            }
        }
    }
}
