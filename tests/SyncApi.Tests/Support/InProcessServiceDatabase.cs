using Kobo.Sync.Storage.Schema;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// A class fixture with a migrated database of its own, seeded by <see cref="SeedSql"/> (no demo seed),
/// and the whole service in process on it. Each test takes its own user with <see cref="NewUser"/>, so
/// tests of one class never see each other's changes.
/// </summary>
public abstract class InProcessServiceDatabase : PostgresDatabase
{
    private int _nextUser;
    private SyncApiFactory? _factory;

    public SyncApiFactory Factory => _factory ?? throw new InvalidOperationException("The service is not started yet.");

    /// <summary>The users and books the tests start from.</summary>
    protected abstract string SeedSql { get; }

    public long NewUser() => Interlocked.Increment(ref _nextUser);

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using (var command = DataSource.CreateCommand(SeedSql))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        _factory = new SyncApiFactory(FunctionalSettings(ConnectionString));
    }

    public override async Task DisposeAsync()
    {
        if (_factory is not null)
        {
            await _factory.DisposeAsync();
        }

        await base.DisposeAsync();
    }

    /// <summary>The fixture's own service, with <see cref="SyncApiFactory.FunctionalRequestBudgetMs"/>.</summary>
    private static Dictionary<string, string?> FunctionalSettings(string connectionString)
    {
        var settings = TestTokens.ServiceSettings(connectionString);
        settings["Resilience:RequestBudgetMs"] = SyncApiFactory.FunctionalRequestBudgetMs;
        return settings;
    }

    /// <summary>Another instance of the service on this database, with <paramref name="settings"/> over the defaults.</summary>
    public SyncApiFactory ServiceWith(Dictionary<string, string?> settings)
    {
        var effective = TestTokens.ServiceSettings(ConnectionString);
        foreach (var (key, value) in settings)
        {
            effective[key] = value;
        }

        return new SyncApiFactory(effective);
    }

    /// <summary>The ids of the user's stored devices, in ordinal order.</summary>
    public async Task<List<string>> DeviceIdsAsync(long user)
    {
        var ids = new List<string>();
        await using var command = DataSource.CreateCommand("SELECT device_id FROM devices WHERE user_no = $1 ORDER BY device_id COLLATE \"C\"");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            ids.Add(reader.GetString(0));
        }

        return ids;
    }
}
