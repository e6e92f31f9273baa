using System.Net.Sockets;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>
/// The instance's data sources, sized once at start by <see cref="ConnectionBudget"/> from the server's
/// <c>max_connections</c> and <c>superuser_reserved_connections</c> (asked on one connection of its own,
/// outside the pools) and <c>Storage:Instances</c>. A server that cannot be asked at start (down,
/// restarting) is taken to have PostgreSQL's defaults, said in a warning: the pools cannot be resized
/// later, so the next start sizes them from the server. A connection string that sets
/// <c>Maximum Pool Size</c> keeps it; when the instances could then hold more than the server's budget,
/// the start warns and names the settings.
/// </summary>
public sealed partial class StoragePools(
    StorageConnection connection, IOptions<StorageOptions> storage, IOptions<SyncOptions> sync, ILogger<StoragePools> logger)
{
    /// <summary>How long the start waits for the server's answer before assuming PostgreSQL's defaults.</summary>
    private const int LimitsTimeoutSeconds = 5;

    private readonly Lock _gate = new();
    private PoolPlan? _plan;

    /// <summary>The instance's share and its split; asks the server on first use.</summary>
    public PoolPlan Plan
    {
        get
        {
            lock (_gate)
            {
                return _plan ??= MakePlan();
            }
        }
    }

    public NpgsqlDataSource CreateWrites() => StorageDataSource.Create(connection.GetConnectionString(), Plan.Write);

    /// <summary>The source for lag-tolerant reads when <c>Storage:ReadConnectionString</c> is set; null otherwise.</summary>
    public NpgsqlDataSource? CreateReads() =>
        storage.Value.ReadConnectionString is { Length: > 0 } read ? StorageDataSource.CreateForReads(read, Plan.Read) : null;

    private PoolPlan MakePlan()
    {
        var options = storage.Value;
        var writes = connection.GetConnectionString();
        var separateReads = !string.IsNullOrWhiteSpace(options.ReadConnectionString);
        var limits = ReadLimits(writes);
        var plan = ConnectionBudget.Plan(limits, options.Instances, options.ReservedConnections, separateReads, sync.Value.LivePull);
        LogPlan(
            logger, limits.MaxConnections, limits.SuperuserReserved, options.ReservedConnections,
            options.Instances, plan.Share, plan.Write, plan.Read, plan.Live);

        var writeMax = new NpgsqlConnectionStringBuilder(StorageDataSource.WithServiceDefaults(writes, plan.Write)).MaxPoolSize;
        var readMax = separateReads
            ? new NpgsqlConnectionStringBuilder(StorageDataSource.WithServiceDefaults(options.ReadConnectionString, plan.Read)).MaxPoolSize
            : 0;
        var total = ConnectionBudget.Total(options.Instances, writeMax + readMax + plan.Live);
        if (total > plan.Budget)
        {
            LogOverBudget(logger, writeMax, readMax, plan.Live, options.Instances, total, plan.Budget);
        }

        return plan;
    }

    private ServerConnectionLimits ReadLimits(string connectionString)
    {
        var builder = new NpgsqlConnectionStringBuilder(connectionString)
        {
            Pooling = false,
            ApplicationName = "kobo-sync-start",
        };
        // 0 would wait for ever: never longer than the bound here.
        builder.Timeout = builder.Timeout is > 0 and < LimitsTimeoutSeconds ? builder.Timeout : LimitsTimeoutSeconds;
        builder.CommandTimeout = LimitsTimeoutSeconds;
        if (builder.Host?.Contains(',', StringComparison.Ordinal) == true
            && !connectionString.Contains("Target Session Attributes", StringComparison.OrdinalIgnoreCase)
            && !connectionString.Contains("TargetSessionAttributes", StringComparison.OrdinalIgnoreCase))
        {
            builder.TargetSessionAttributes = "primary";
        }

        try
        {
            // Named, as the service's pools are: Npgsql's metrics name a pool by its connection string otherwise.
            using var source = new NpgsqlDataSourceBuilder(builder.ConnectionString) { Name = "kobo-sync-start" }.Build();
            using var server = source.OpenConnection();
            using var command = new NpgsqlCommand(
                "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int", server);
            using var reader = command.ExecuteReader();
            reader.Read();
            return new ServerConnectionLimits(reader.GetInt32(0), reader.GetInt32(1));
        }
        catch (Exception e) when (e is NpgsqlException or SocketException or TimeoutException or InvalidOperationException)
        {
            var assumed = ServerConnectionLimits.PostgresDefaults;
            LogLimitsUnknown(logger, e.Message, assumed.MaxConnections, assumed.SuperuserReserved);
            return assumed;
        }
    }

    [LoggerMessage(
        Level = LogLevel.Information,
        Message = "Storage connections: the server takes {MaxConnections} (less {SuperuserReserved} for superusers and " +
            "Storage:ReservedConnections {Reserved}) for Storage:Instances {Instances}; this instance holds at most {Share}: " +
            "writes {Write}, reads {Read}, live pull (listener and signals) {Live}")]
    private static partial void LogPlan(
        ILogger logger, int maxConnections, int superuserReserved, int reserved, int instances, int share, int write, int read, int live);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "Storage connections: the connection strings' Maximum Pool Size (writes {Write}, reads {Read}) and live pull's {Live}, " +
            "times Storage:Instances {Instances}, let the instances hold {Total} connections, " +
            "more than the server's {Budget} (max_connections less superuser_reserved_connections and Storage:ReservedConnections): " +
            "a busy instance can leave the others without connections. Lower Maximum Pool Size or remove it")]
    private static partial void LogOverBudget(ILogger logger, int write, int read, int live, int instances, int total, int budget);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "Storage connections: the server's limits could not be read at start ({Reason}); " +
            "the pools are sized as if max_connections were {MaxConnections} and superuser_reserved_connections {SuperuserReserved} " +
            "until the next start")]
    private static partial void LogLimitsUnknown(ILogger logger, string reason, int maxConnections, int superuserReserved);
}
