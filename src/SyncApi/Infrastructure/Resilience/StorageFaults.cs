using System.Net.Sockets;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>Which database failures say "the database is unreachable or overloaded" rather than "this statement is wrong".</summary>
public static class StorageFaults
{
    /// <summary>
    /// A failure worth one more try on another connection (or another node, after a failover): the
    /// connection broke or timed out, the server is shutting down or starting, a standby was
    /// promoted under us, or the server is out of connections. Not a constraint violation, not a
    /// syntax error, not a cancellation.
    /// </summary>
    public static bool IsTransient(Exception exception) => exception switch
    {
        PostgresException postgres => IsTransientSqlState(postgres.SqlState),
        // A multi-host string during a failover: no host is of the kind asked for (no primary yet, as
        // Npgsql's host state cache says), or every host failed for a transient reason.
        NpgsqlException { InnerException: null } npgsql when npgsql.Message == NoSuitableHost => true,
        NpgsqlException { InnerException: AggregateException all } => all.InnerExceptions.Count > 0 && all.InnerExceptions.All(IsTransient),
        NpgsqlException npgsql => npgsql.IsTransient || npgsql.InnerException is IOException or SocketException or TimeoutException,
        TimeoutException or SocketException => true,
        _ => false,
    };

    /// <summary>
    /// A failure that counts against the circuit breaker: a transient one, or a call that ran out of
    /// its budget while the caller still waited (the database did not answer in time).
    /// </summary>
    public static bool CountsAgainstTheDatabase(Exception exception, CancellationToken caller) =>
        IsTransient(exception) || (exception is OperationCanceledException && !caller.IsCancellationRequested);

    /// <summary>Npgsql's message (it has no exception type of its own) when no host of a multi-host list can serve the session kind asked for.</summary>
    private const string NoSuitableHost = "No suitable host was found.";

    private static bool IsTransientSqlState(string state) =>
        state.StartsWith("08", StringComparison.Ordinal) // connection exceptions
        || state is "57P01" or "57P02" or "57P03" // admin shutdown, crash shutdown, cannot connect now
        || state is "53300" // too many connections
        || state is "25006" // read-only transaction: a write reached a node that was just demoted
        || state is "40001" or "40P01"; // serialization failure, deadlock: the transaction may simply be run again
}
