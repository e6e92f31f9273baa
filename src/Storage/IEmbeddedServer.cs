namespace Kobo.Sync.Storage;

/// <summary>
/// A private PostgreSQL server that a development build starts when no database is configured
/// (<c>Storage:Embedded</c>); the launcher lives in the development server project, which a published service
/// does not carry.
/// </summary>
public interface IEmbeddedServer : IAsyncDisposable
{
    string ConnectionString { get; }

    /// <summary>Host, port, database and user: safe to log.</summary>
    string LogSafeConnectionString { get; }
}

/// <summary>Starts the <see cref="IEmbeddedServer"/> <c>Storage:Embedded</c> describes.</summary>
public interface IEmbeddedServerLauncher
{
    Task<IEmbeddedServer> StartAsync(EmbeddedStorageOptions options, CancellationToken cancellationToken);
}

/// <summary>Work storage runs once migrated, before the service reports ready (the demo data of a development run).</summary>
public interface IStartupSeed
{
    Task SeedAsync(Npgsql.NpgsqlDataSource dataSource, CancellationToken cancellationToken);
}
