using System.Data.Common;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

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

    /// <summary>
    /// The connections a pool keeps however idle they are (Npgsql's default is none). Every
    /// <c>Connection Idle Lifetime</c> (300 s) Npgsql closes the pool's typical idle count, sampled
    /// every 10 s, down to this floor. A pool that serves requests of a few milliseconds looks idle to
    /// those samples, so at 300 syncs/s it lost nearly all its connections every five minutes; the
    /// requests that came next each opened one, and on a busy machine those openings took 2-3.5 s
    /// together, for every request of those seconds, and left 130-200 connections behind to be closed
    /// again five minutes later (docs/performance.md, "The release gate"). The floor is above what
    /// that load holds open (25), and connections are still opened only when needed.
    /// </summary>
    public const int DefaultMinPoolSize = 32;

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
    public static NpgsqlDataSource CreateForReads(string connectionString)
    {
        var builder = new NpgsqlConnectionStringBuilder(WithServiceDefaults(connectionString));
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

    public static NpgsqlDataSource Create(string connectionString) =>
        new NpgsqlDataSourceBuilder(WithServiceDefaults(connectionString)) { Name = WritePoolName }.Build();

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
    /// Automatic preparation is switched on (hot statements are prepared after their second use), the
    /// session reset on returning a connection to the pool is switched off and the pool keeps a floor
    /// of connections (<see cref="DefaultMinPoolSize"/>, at most its maximum), unless the connection
    /// string sets them; everything else, multi-host lists included, passes through. The reset
    /// (<c>RESET ALL</c>, <c>CLOSE ALL</c>, ... sent before the next use) costs a parse and a round of
    /// work in the server on every pooled open, which is every request here; the service never
    /// changes session state (no <c>SET</c>, no temporary tables, no session advisory locks held past
    /// a command), so there is nothing to reset. Multiplexing stays off although it
    /// doubled throughput here (docs/performance.md): a multiplexed command cannot be cancelled in
    /// the server, and a device's deadline or disconnect must stop its query.
    /// </summary>
    internal static string WithServiceDefaults(string connectionString)
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

        if (!keys.Contains("MinimumPoolSize") && !keys.Contains("MinPoolSize"))
        {
            builder.MinPoolSize = Math.Min(DefaultMinPoolSize, builder.MaxPoolSize);
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
