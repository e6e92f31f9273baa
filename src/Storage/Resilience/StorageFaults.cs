using System.Net.Sockets;
using Npgsql;

namespace Kobo.Sync.Storage.Resilience;

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
        PostgresException postgres => IsTransientSqlState(postgres.SqlState) || IsStatementOutOfStep(postgres),
        // A multi-host string during a failover: no host is of the kind asked for (no primary yet, as
        // Npgsql's host state cache says), or every host failed for a transient reason.
        NpgsqlException { InnerException: null } npgsql when npgsql.Message == NoSuitableHost => true,
        NpgsqlException { InnerException: AggregateException all } => all.InnerExceptions.Count > 0 && all.InnerExceptions.All(IsTransient),
        NpgsqlException npgsql => npgsql.IsTransient || npgsql.InnerException is IOException or SocketException or TimeoutException,
        TimeoutException or SocketException => true,
        _ => false,
    };

    /// <summary>
    /// The server has no prepared statement of a name the connection's driver holds as prepared (26000,
    /// <c>prepared statement "_autoN" does not exist</c>): the connection's record of its statements is
    /// out of step with the server, and every later call on it would fail the same way. Neither the
    /// statement nor the database is at fault. The service's own batches cannot cause it (they are
    /// prepared before they run, <c>PreparedBatches</c>); a pooler or an operator deallocating
    /// statements could. Such a connection is dropped from the pool and the call tried again on another:
    /// it is transient, so a device gets an answer or a 503, never a 500.
    /// </summary>
    public static bool IsStatementOutOfStep(Exception exception) =>
        exception is PostgresException { SqlState: PostgresErrorCodes.InvalidSqlStatementName };

    /// <summary>
    /// A failure that counts against the circuit breaker: a transient one, or a call that ran out of
    /// its budget while the caller still waited (the database did not answer in time).
    /// </summary>
    public static bool CountsAgainstTheDatabase(Exception exception, CancellationToken caller) =>
        IsTransient(exception) || (exception is OperationCanceledException && !caller.IsCancellationRequested);

    /// <summary>
    /// Npgsql's message (it has no exception type of its own) when no host of a multi-host list can serve the session kind asked for.
    /// </summary>
    private const string NoSuitableHost = "No suitable host was found.";

    private static bool IsTransientSqlState(string state) =>
        state.StartsWith("08", StringComparison.Ordinal) // connection exceptions
        || state is "57P01" or "57P02" or "57P03" // admin shutdown, crash shutdown, cannot connect now
        || state is "53300" // too many connections
        || state is "25006" // read-only transaction: a write reached a node that was just demoted
        || state is "40001" or "40P01"; // serialization failure, deadlock: the transaction may simply be run again
}
