using System.Data.Common;
using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>Builds the service's one <see cref="NpgsqlDataSource"/> from a connection string.</summary>
public static class StorageDataSource
{
    public const int DefaultMaxAutoPrepare = 20;
    public const int DefaultAutoPrepareMinUsages = 2;

    /// <summary>
    /// How long a cancelled command waits for the server to confirm the cancellation before the
    /// connection is dropped instead (Npgsql's default is 2 s). A database that is black-holed never
    /// confirms; a request past its budget must not hang on it.
    /// </summary>
    public const int DefaultCancellationTimeoutMs = 250;

    /// <summary>The DI key of the data source for reads that tolerate replica lag.</summary>
    public const string ReadKey = "storage-read";

    /// <summary>
    /// The pool names in Npgsql's metrics (<c>db_client_connection_pool_name</c>). Without a name Npgsql
    /// labels a pool with its connection string, which puts hosts, database and user name on /metrics.
    /// </summary>
    public const string WritePoolName = "kobo-sync";
    public const string ReadPoolName = "kobo-sync-reads";

    /// <summary>
    /// How often Npgsql re-learns which host of a multi-host list is the primary (its default is 10 s):
    /// after a failover, writes reach the new primary this long after Patroni promotes it at worst.
    /// </summary>
    public const int DefaultHostRecheckSeconds = 1;

    /// <summary>
    /// The data source for lag-tolerant reads: the same service defaults, and for a host list, unless
    /// the string says otherwise, standbys first (<c>prefer-standby</c>) with the load spread over them.
    /// </summary>
    public static NpgsqlDataSource CreateForReads(string connectionString, int? poolSize = null)
    {
        var builder = new NpgsqlConnectionStringBuilder(WithServiceDefaults(connectionString, poolSize));
        var given = Keys(connectionString);
        var multiHost = builder.Host?.Contains(',', StringComparison.Ordinal) == true;
        if (multiHost && !given.Contains("TargetSessionAttributes"))
        {
            builder.TargetSessionAttributes = "prefer-standby";
        }

        if (multiHost && !given.Contains("LoadBalanceHosts"))
        {
            builder.LoadBalanceHosts = true;
        }

        return new NpgsqlDataSourceBuilder(builder.ConnectionString) { Name = ReadPoolName }.Build();
    }

    /// <param name="poolSize">The pool's share of the instance's connections (<see cref="ConnectionBudget"/>); null for a tool's own
    /// short-lived source.</param>
    public static NpgsqlDataSource Create(string connectionString, int? poolSize = null) =>
        new NpgsqlDataSourceBuilder(WithServiceDefaults(connectionString, poolSize)) { Name = WritePoolName }.Build();

    /// <summary>Whether the connection string sets the pool's maximum itself (which then wins over the share).</summary>
    public static bool SetsMaxPoolSize(string connectionString) => SetsMaxPoolSize(Keys(connectionString));

    private static bool SetsMaxPoolSize(HashSet<string> keys) => keys.Contains("MaximumPoolSize") || keys.Contains("MaxPoolSize");

    private static HashSet<string> Keys(string connectionString)
    {
        var given = new DbConnectionStringBuilder { ConnectionString = connectionString };
        var keys = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        foreach (string key in given.Keys)
        {
            keys.Add(key.Replace(" ", string.Empty, StringComparison.Ordinal));
        }

        return keys;
    }

    /// <summary>
    /// Sets the service's defaults where the connection string does not; everything else, multi-host lists
    /// included, passes through:
    /// <list type="bullet">
    /// <item>automatic preparation on (hot statements are prepared after their second use);</item>
    /// <item>no session reset on returning a connection to the pool: the reset costs a parse and a round of server
    /// work on every pooled open, and the service never changes session state (no <c>SET</c>, no temporary tables,
    /// no session advisory locks held past a command);</item>
    /// <item>the pool's maximum at its share of the instance's connections (<paramref name="poolSize"/>, from
    /// <see cref="ConnectionBudget"/>), and <c>Minimum Pool Size</c> at the smaller of the share and the maximum, so
    /// the pool never shrinks: Npgsql's five-minute idle pruning emptied a busy pool between bursts, and reopening
    /// the connections stalled every request for seconds (docs/performance.md, "The pool that shrank: the long runs'
    /// stalls"; the sizing: docs/operations.md, "PostgreSQL settings, and a database that holds data already").</item>
    /// </list>
    /// Multiplexing stays off: a multiplexed command cannot be cancelled in the server, and a device's deadline or
    /// disconnect must stop its query (docs/performance-history.md, "Tried and not kept: multiplexing").
    /// </summary>
    public static string WithServiceDefaults(string connectionString, int? poolSize = null)
    {
        var keys = Keys(connectionString);
        var builder = new NpgsqlConnectionStringBuilder(connectionString);
        if (!keys.Contains("MaxAutoPrepare"))
        {
            builder.MaxAutoPrepare = DefaultMaxAutoPrepare;
        }

        if (!keys.Contains("AutoPrepareMinUsages"))
        {
            builder.AutoPrepareMinUsages = DefaultAutoPrepareMinUsages;
        }

        if (!keys.Contains("CancellationTimeout"))
        {
            builder.CancellationTimeout = DefaultCancellationTimeoutMs;
        }

        if (!keys.Contains("HostRecheckSeconds"))
        {
            builder.HostRecheckSeconds = DefaultHostRecheckSeconds;
        }

        if (!keys.Contains("NoResetOnClose"))
        {
            builder.NoResetOnClose = true;
        }

        if (poolSize is { } share && !SetsMaxPoolSize(keys))
        {
            // A floor the string sets above the share lifts the maximum with it (the start warns of the total).
            builder.MaxPoolSize = Math.Max(share, builder.MinPoolSize);
        }

        if (!keys.Contains("MinimumPoolSize") && !keys.Contains("MinPoolSize"))
        {
            builder.MinPoolSize = Math.Min(builder.MaxPoolSize, poolSize ?? builder.MaxPoolSize);
        }

        return builder.ConnectionString;
    }

    /// <summary>Host(s), port, database and user of a connection string, without secrets: safe to log.</summary>
    public static string LogSafe(string connectionString)
    {
        var given = new NpgsqlConnectionStringBuilder(connectionString);
        var safe = new NpgsqlConnectionStringBuilder
        {
            Host = given.Host,
            Port = given.Port,
            Database = given.Database,
            Username = given.Username,
        };
        return safe.ConnectionString;
    }
}
