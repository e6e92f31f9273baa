using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Coalescing;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Migrations;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Purges;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Stores;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>PostgreSQL storage: options, the embedded server when no connection string is set, the primary and read data sources, migrations, demo seed, reads, readiness.</summary>
public static class StorageExtensions
{
    public static WebApplicationBuilder AddStorage(this WebApplicationBuilder builder)
    {
        builder.AddResilience();
        var services = builder.Services;
        services.AddValidatedOptions<StorageOptions, StorageOptionsValidator>(StorageOptions.SectionName)
            .PostConfigure(storage => storage.DefaultEmbeddedFor(builder.Environment.EnvironmentName));
        services.AddValidatedOptions<DemoOptions>(DemoOptions.SectionName);
        // The purge jobs read Sync's retention and batches; the stores tell live pull's signals of their commits (when it is added).
        services.AddValidatedOptions<SyncOptions>(SyncOptions.SectionName);

        services.AddSingleton<StorageConnection>();
        // Both pools sized from the server's max_connections and Storage:Instances (ConnectionBudget).
        services.AddSingleton<StoragePools>();
        services.AddSingleton(sp => sp.GetRequiredService<StoragePools>().CreateWrites());
        // Reads that tolerate replica lag: standbys when Storage:ReadConnectionString is set, else the same source.
        services.AddKeyedSingleton(StorageDataSource.ReadKey, (sp, _) =>
            sp.GetRequiredService<StoragePools>().CreateReads() ?? sp.GetRequiredService<NpgsqlDataSource>());
        services.AddSingleton<StorageReadiness>();
        services.AddSingleton<SchemaMigrator>();
        services.AddValidatedOptions<ReadCoalescingOptions>(ReadCoalescingOptions.SectionName);
        services.AddSingleton(sp => new ReadCoalescer(
            sp.GetRequiredKeyedService<NpgsqlDataSource>(StorageDataSource.ReadKey),
            sp.GetRequiredService<IOptions<ReadCoalescingOptions>>().Value,
            sp.GetService<SyncMetrics>()));
        services.AddSingleton<PostgresDeviceReadStore>();
        services.AddSingleton<IDeviceReadStore, ResilientDeviceReadStore>();
        services.AddSingleton(sp => new PostgresSyncStore(sp.GetRequiredService<NpgsqlDataSource>(), sp.GetService<ICommitSignals>()));
        services.AddSingleton<ISyncStore, ResilientSyncStore>();
        services.AddSingleton(sp => new PostgresReadingStateStore(sp.GetRequiredService<NpgsqlDataSource>(), sp.GetService<ICommitSignals>()));
        services.AddSingleton<IReadingStateStore, ResilientReadingStateStore>();
        services.AddSingleton(sp => new PostgresCollectionStore(sp.GetRequiredService<NpgsqlDataSource>(), sp.GetService<ICommitSignals>()));
        services.AddSingleton<ICollectionStore, ResilientCollectionStore>();
        services.AddHostedService<StorageStartup>();
        services.AddSingleton<TombstonePurge>();
        services.TryAddSingleton(TimeProvider.System);
        services.AddHostedService<TombstonePurgeService>();
        // The list authentication checks; filled from the store even where device auth is not added.
        services.TryAddSingleton(DeviceRevocationList.FromSettings);
        // The Kobo links it drops when their revocations arrive, likewise.
        services.TryAddSingleton<KoboLinkCache>();
        services.AddHostedService<DeviceRevocationRefresher>();
        services.AddSingleton<RevocationPurge>();
        services.AddHostedService<RevocationPurgeService>();

        services.AddHealthChecks().AddCheck<StorageHealthCheck>("storage", tags: [ServiceDefaultsExtensions.ReadyTag]);
        return builder;
    }
}
