using Kobo.Sync.Storage;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// A fresh, empty database on the test run's <see cref="PostgresServer"/> for one test class
/// (<c>IClassFixture&lt;PostgresDatabase&gt;</c>), dropped afterwards. To run the whole service on it:
/// <c>new SyncApiFactory(new Dictionary&lt;string, string?&gt; { ["Storage:ConnectionString"] = db.ConnectionString })</c>.
/// </summary>
public class PostgresDatabase : IAsyncLifetime
{
    private string? _connectionString;
    private NpgsqlDataSource? _dataSource;

    public string Name { get; } = "test_" + Guid.NewGuid().ToString("N")[..16];

    public string ConnectionString => _connectionString ?? throw new InvalidOperationException("The database is not created yet.");

    /// <summary>A data source built the way the service builds its own.</summary>
    public NpgsqlDataSource DataSource => _dataSource ?? throw new InvalidOperationException("The database is not created yet.");

    public virtual async Task InitializeAsync()
    {
        var server = await PostgresServer.GetAsync();
        await using (var admin = new NpgsqlConnection(server.ConnectionString))
        {
            await admin.OpenAsync();
            await using var create = new NpgsqlCommand($"CREATE DATABASE {Name}", admin);
            await create.ExecuteNonQueryAsync();
        }

        _connectionString = new NpgsqlConnectionStringBuilder(server.ConnectionString) { Database = Name }.ConnectionString;
        _dataSource = StorageDataSource.Create(_connectionString);
    }

    public virtual async Task DisposeAsync()
    {
        if (_dataSource is not null)
        {
            await _dataSource.DisposeAsync();
        }

                var server = await PostgresServer.GetAsync();
        await using var admin = new NpgsqlConnection(server.ConnectionString);
        await admin.OpenAsync();
        await using var drop = new NpgsqlCommand($"DROP DATABASE IF EXISTS {Name} WITH (FORCE)", admin);
        await drop.ExecuteNonQueryAsync();
    }
}
