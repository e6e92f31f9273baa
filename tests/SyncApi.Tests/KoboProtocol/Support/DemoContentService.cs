using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

/// <summary>
/// A class fixture for the demo content origin: a database of its own, migrated and seeded with the demo
/// data set as the demo run seeds it, and the service on it with the demo origin on
/// (<c>Kobo:DemoContent</c>), as the embedded run has it by default. Tests may link e-readers in it.
/// </summary>
public sealed class DemoContentService : PostgresDatabase
{
    private SyncApiFactory? _factory;

    public SyncApiFactory Factory => _factory ?? throw new InvalidOperationException("The service is not started yet.");

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await new DemoSeeder(DataSource).SeedAsync(TestTimeout.Token);
        var settings = TestTokens.ServiceSettings(ConnectionString);
        settings["Kobo:DemoContent"] = "true";
        _factory = new SyncApiFactory(settings);
    }

    public override async Task DisposeAsync()
    {
        if (_factory is not null)
        {
            await _factory.DisposeAsync();
        }

        await base.DisposeAsync();
    }
}
