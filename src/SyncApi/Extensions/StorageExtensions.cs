using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.Storage.Purges;
using Kobo.Sync.Storage.Standbys;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.Storage.Telemetry;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Npgsql;

#if DEVELOPMENT_SERVER
using Kobo.Sync.DevServer;
#endif

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// PostgreSQL storage: options, the embedded server of a development build when no connection string is set, the primary and read data
/// sources, migrations, demo seed, reads, readiness.
/// </summary>
public static class StorageExtensions
{
    public static WebApplicationBuilder AddStorage(this WebApplicationBuilder builder)
    {
        builder.AddResilience();
        var services = builder.Services;
        services.AddValidatedOptions<StorageOptions, StorageOptionsValidator>(StorageOptions.SectionName)
            .PostConfigure(storage => storage.DefaultEmbeddedFor(builder.Environment.EnvironmentName));
#if DEVELOPMENT_SERVER
        // The private PostgreSQL server of Storage:Embedded and the demo data (src/DevServer; not in a published service).
        services.AddDevelopmentServer();
#endif
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
            sp.GetService<StorageMetrics>()));
        services.AddSingleton<PostgresDeviceReadStore>();
        services.AddSingleton<IDeviceReadStore, ResilientDeviceReadStore>();
        // Device pulls, the Kobo library sync and reading-state reads: standbys that have the user's last write, else the primary.
        services.AddSingleton(CreateStandbyReads);
        services.AddSingleton(sp => new PostgresSyncStore(
            sp.GetRequiredService<NpgsqlDataSource>(), CommitSignalsOf(sp), sp.GetRequiredService<StandbyReads>()));
        services.AddSingleton<ResilientSyncStore>();
        services.AddSingleton<ISyncStore>(sp => sp.GetRequiredService<ResilientSyncStore>());
        services.AddSingleton<IDeviceStore>(sp => sp.GetRequiredService<ResilientSyncStore>());
        services.AddSingleton(sp => new PostgresReadingStateStore(
            sp.GetRequiredService<NpgsqlDataSource>(), CommitSignalsOf(sp), sp.GetRequiredService<StandbyReads>()));
        services.AddSingleton<IReadingStateStore, ResilientReadingStateStore>();
        services.AddSingleton(sp => new PostgresCollectionStore(sp.GetRequiredService<NpgsqlDataSource>(), CommitSignalsOf(sp)));
        services.AddSingleton<ICollectionStore, ResilientCollectionStore>();
        services.AddHostedService<StorageStartup>();
        services.AddSingleton<TombstonePurge>();
        services.TryAddSingleton(TimeProvider.System);
        services.AddHostedService<TombstonePurgeService>();
        // The list authentication checks; filled from the store even where device auth is not added.
        services.TryAddSingleton(DeviceRevocationList.FromSettings);
        // The Kobo links it drops when their revocations arrive, likewise.
        services.TryAddSingleton<KoboLinkCache>();
        services.AddSingleton<PostgresRevocationReads>();
        services.AddHostedService<DeviceRevocationRefresher>();
        services.AddSingleton<RevocationPurge>();
        services.AddHostedService<RevocationPurgeService>();

        services.AddHealthChecks().AddCheck<StorageHealthCheck>("storage", tags: [ServiceDefaultsExtensions.ReadyTag]);
        return builder;
    }

    /// <summary>
    /// What a store tells of its commits: live pull's signals (when added) and, when device reads go to
    /// standbys, the users' last writes those reads must see (<see cref="RecentWrites"/>, told first).
    /// </summary>
    public static ICommitSignals? CommitSignalsOf(IServiceProvider services)
    {
        var live = services.GetService<ICommitSignals>();
        return services.GetRequiredService<StandbyReads>().Writes is not { } writes ? live
            : live is null ? writes
            : new CommitSignalsInOrder(writes, live);
    }

    private static StandbyReads CreateStandbyReads(IServiceProvider services)
    {
        var options = services.GetRequiredService<IOptions<StorageOptions>>().Value;
        var primary = services.GetRequiredService<NpgsqlDataSource>();
        var reads = services.GetRequiredKeyedService<NpgsqlDataSource>(StorageDataSource.ReadKey);
        if (ReferenceEquals(reads, primary) || !options.DeviceReadsFromStandbys)
        {
            return StandbyReads.PrimaryOnly(primary);
        }

        var maxLag = TimeSpan.FromMilliseconds(options.StandbyMaxLagMs);
        var writes = new RecentWrites(maxLag, services.GetRequiredService<TimeProvider>());
        return new StandbyReads(primary, reads, writes, maxLag, services.GetService<StorageMetrics>());
    }
}
