namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// One migrated, demo-seeded database for the whole test run, for tests that start the service but
/// do not care which store it uses: they must only read it. Gives a synchronous connection string so
/// it can feed <see cref="SyncApiFactory"/>'s settings:
/// <c>new SyncApiFactory(new Dictionary&lt;string, string?&gt; { ["Storage:ConnectionString"] = SharedDemoDatabase.ConnectionString })</c>.
/// Without a connection string the service would start its own server in the test's working directory.
/// </summary>
public static class SharedDemoDatabase
{
    private static readonly Lazy<Task<DemoDatabase>> Database = new(CreateAsync, LazyThreadSafetyMode.ExecutionAndPublication);

    public static string ConnectionString => Database.Value.GetAwaiter().GetResult().ConnectionString;

    public static Task<DemoDatabase> GetAsync() => Database.Value;

    // Never dropped: it goes with the run's server.
    private static async Task<DemoDatabase> CreateAsync()
    {
        var database = new DemoDatabase();
        await database.InitializeAsync();
        return database;
    }
}
