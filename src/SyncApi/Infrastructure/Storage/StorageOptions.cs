namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// Where the service keeps its data. With no <see cref="ConnectionString"/> the service starts a
/// private PostgreSQL server of its own (see <see cref="EmbeddedStorageOptions"/>), so a newcomer
/// runs it with no setup; production sets a connection string (multi-host strings are passed through).
/// </summary>
public sealed class StorageOptions
{
    public const string SectionName = "Storage";

    /// <summary>An Npgsql connection string; empty starts the embedded server.</summary>
    public string ConnectionString { get; set; } = string.Empty;

    /// <summary>
    /// Optional: an Npgsql connection string for reads that tolerate replica lag, normally the same
    /// host list with <c>Target Session Attributes=prefer-standby;Load Balance Hosts=true</c> (set when
    /// absent). Empty: those reads use <see cref="ConnectionString"/>. Needs a <see cref="ConnectionString"/>.
    /// </summary>
    public string ReadConnectionString { get; set; } = string.Empty;

    /// <summary>
    /// How many instances of the service share the database server, at most (count a rolling upgrade's
    /// extra one if it starts before the old stops). Each instance holds at most its share of the server's
    /// connections (<see cref="ConnectionBudget"/>); 1 suits a single instance on the embedded server.
    /// </summary>
    public int Instances { get; set; } = 1;

    /// <summary>
    /// Connections of the server's <c>max_connections</c> (beyond <c>superuser_reserved_connections</c>)
    /// kept out of the instances' shares: replication and Patroni's own, the monitoring's and the operators' sessions.
    /// </summary>
    public int ReservedConnections { get; set; } = 10;

    public EmbeddedStorageOptions Embedded { get; set; } = new();

    public bool UsesEmbeddedServer => string.IsNullOrWhiteSpace(ConnectionString);
}

/// <summary>The private server started when <c>Storage:ConnectionString</c> is empty.</summary>
public sealed class EmbeddedStorageOptions
{
    /// <summary>
    /// The data directory, relative to the working directory unless absolute. When the service runs as
    /// root the server runs as the <c>postgres</c> user, so every parent directory must be traversable
    /// by others (o+x): a path under <c>/root</c> fails the start with a message saying so.
    /// </summary>
    public string DataDirectory { get; set; } = "data/postgres";

    /// <summary>Loopback port of the private server.</summary>
    public int Port { get; set; } = 5433;

    /// <summary>The database the service uses; created when missing.</summary>
    public string Database { get; set; } = "kobo_sync";

    public string FullDataDirectory => Path.GetFullPath(DataDirectory, Environment.CurrentDirectory);
}

/// <summary>Demo data for a fresh store, so a newcomer's first request finds users and highlights.</summary>
public sealed class DemoOptions
{
    public const string SectionName = "Demo";

    /// <summary>Seed the demo data set at start when the users table is empty.</summary>
    public bool Seed { get; set; } = true;
}
