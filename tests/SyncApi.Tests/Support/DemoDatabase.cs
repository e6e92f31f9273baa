using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Schema;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// A <see cref="PostgresDatabase"/> migrated and loaded with the demo data set, for one test class.
/// Tests must only read it. A service started on it (<c>Storage:ConnectionString</c>) finds the schema
/// migrated and the store seeded, and changes neither.
/// </summary>
public sealed class DemoDatabase : PostgresDatabase
{
    /// <summary>The user with the most highlights, over many books.</summary>
    public UserNo HeavyUser => DemoData.HeavyUser;

    public DemoSeedResult Seed { get; private set; } = null!;

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        Seed = await new DemoSeeder(DataSource).SeedAsync(TestTimeout.Token);
    }
}
