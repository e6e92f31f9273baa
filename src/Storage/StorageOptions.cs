namespace Kobo.Sync.Storage;

/// <summary>
/// Where the service keeps its data: the database of <see cref="ConnectionString"/> (multi-host strings are
/// passed through). With none, in Development, the service starts a private PostgreSQL server of its own
/// (see <see cref="EmbeddedStorageOptions"/>), so a newcomer runs it with no setup; in any other environment
/// an empty connection string stops the start, unless <c>Storage:Embedded:Enabled</c> asks for that server.
/// </summary>
public sealed class StorageOptions
{
    public const string SectionName = "Storage";

    /// <summary>
    /// An Npgsql connection string; empty starts the embedded server where it is enabled (<see cref="EmbeddedStorageOptions.Enabled"/>).
    /// </summary>
    public string ConnectionString { get; set; } = string.Empty;

    /// <summary>
    /// Optional: an Npgsql connection string for reads that tolerate replica lag, normally the same
    /// host list with <c>Target Session Attributes=prefer-standby;Load Balance Hosts=true</c> (set when
    /// absent). Empty: those reads use <see cref="ConnectionString"/>. Needs a <see cref="ConnectionString"/>.
    /// </summary>
    public string ReadConnectionString { get; set; } = string.Empty;

    /// <summary>
    /// With a <see cref="ReadConnectionString"/>: device pulls (REST, gRPC and their live forms), the Kobo
    /// library sync and reading-state reads go to a standby when it shows it has replayed the user's last
    /// write this instance knows of, else to the primary (<c>StandbyReads</c>). False: they read the primary.
    /// </summary>
    public bool DeviceReadsFromStandbys { get; set; } = true;

    /// <summary>
    /// The most a standby may lag (WAL received and not yet replayed, its last replayed commit older than
    /// this) and still answer device reads; also how long each instance holds users' last writes.
    /// </summary>
    public int StandbyMaxLagMs { get; set; } = 10_000;

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

    public bool HasConnectionString => !string.IsNullOrWhiteSpace(ConnectionString);

    /// <summary>The service runs on its private server: no connection string, and the server enabled.</summary>
    public bool UsesEmbeddedServer => !HasConnectionString && Embedded.Enabled == true;

    /// <summary>
    /// <c>Storage:Embedded:Enabled</c> when the settings leave it out and give no connection string: on in
    /// Development, off elsewhere, so a production host without its connection string fails to start instead
    /// of keeping devices' writes in a throw-away database.
    /// </summary>
    public void DefaultEmbeddedFor(string environmentName)
    {
        if (!HasConnectionString)
        {
            Embedded.Enabled ??= string.Equals(environmentName, Environments.Development, StringComparison.OrdinalIgnoreCase);
        }
    }
}

/// <summary>The private server started when <c>Storage:ConnectionString</c> is empty and the server is enabled.</summary>
public sealed class EmbeddedStorageOptions
{
    /// <summary>
    /// Start the private server when <c>Storage:ConnectionString</c> is empty (a connection string wins).
    /// Left out: on in Development only (<see cref="StorageOptions.DefaultEmbeddedFor"/>). Benchmarks and
    /// tests that want the private server in production mode set it to true.
    /// </summary>
    public bool? Enabled { get; set; }

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
