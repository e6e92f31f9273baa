using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// A class fixture: a fresh database that the service migrates itself when it starts on it (no demo
/// seed), for tests that lock or break the store and so must not share it.
/// </summary>
public class ServiceOnOwnDatabase : PostgresDatabase
{
    private SyncGrpcTestHost? _host;

    public SyncGrpcTestHost Host => _host ?? throw new InvalidOperationException("The service is not started yet.");

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        _host = new SyncGrpcTestHost(ConnectionString);
    }

    public override async Task DisposeAsync()
    {
        _host?.Dispose();
        await base.DisposeAsync();
    }

    /// <summary>Runs <paramref name="sql"/> on the server's maintenance database, outside this one.</summary>
    protected static async Task AdminAsync(string sql, params object[] parameters)
    {
        var server = await PostgresServer.GetAsync();
        await using var admin = new NpgsqlConnection(server.ConnectionString);
        await admin.OpenAsync(TestTimeout.Token);
        await using var command = new NpgsqlCommand(sql, admin);
        foreach (var value in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = value });
        }

        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }
}

/// <summary>
/// The service started on its own database, which then stops answering: new connections are refused
/// (<c>ALLOW_CONNECTIONS false</c>) and the open ones, the service's pool included, are terminated.
/// </summary>
public sealed class ServiceWithStorageDown : ServiceOnOwnDatabase
{
    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await AdminAsync($"ALTER DATABASE {Name} WITH ALLOW_CONNECTIONS false");
        await AdminAsync("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", Name);
    }

    public override async Task DisposeAsync()
    {
        await AdminAsync($"ALTER DATABASE {Name} WITH ALLOW_CONNECTIONS true");
        await base.DisposeAsync();
    }
}
