using Kobo.Sync.SyncApi.Infrastructure.Storage.Migrations;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Seeding;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Storage comes up before the service takes requests: the embedded server (when used), then the
/// schema migrations, then the demo seed (when <c>Demo:Seed</c> is on and the store is empty).
/// </summary>
internal sealed class StorageStartup(
    StorageConnection connection,
    IServiceProvider services,
    StorageReadiness readiness,
    IOptions<DemoOptions> demo,
    ILogger<StorageStartup> logger) : IHostedService
{
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        await connection.GetConnectionStringAsync(cancellationToken).ConfigureAwait(false);
        logger.LogInformation("Storage: {ConnectionString}", connection.LogSafe());

        var dataSource = services.GetRequiredService<NpgsqlDataSource>();
        await services.GetRequiredService<SchemaMigrator>().MigrateAsync(cancellationToken).ConfigureAwait(false);
        readiness.MarkMigrated();

        if (demo.Value.Seed)
        {
            await new DemoSeeder(dataSource, services.GetRequiredService<ILogger<DemoSeeder>>())
                .SeedAsync(cancellationToken).ConfigureAwait(false);
        }

        readiness.MarkSeeded();
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
