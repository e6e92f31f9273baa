using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// An ACCESS EXCLUSIVE lock on one table, held by an open transaction on a connection of its own
/// until disposed (rolled back): every read of that table waits. Watches, from a third connection,
/// the backends of the database that wait on a lock.
/// </summary>
public sealed class TableLock : IAsyncDisposable
{
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(20);

    private readonly NpgsqlConnection _holder;
    private readonly NpgsqlTransaction _transaction;
    private readonly NpgsqlConnection _observer;

    private TableLock(NpgsqlConnection holder, NpgsqlTransaction transaction, NpgsqlConnection observer)
    {
        _holder = holder;
        _transaction = transaction;
        _observer = observer;
    }

    public static async Task<TableLock> TakeAsync(PostgresDatabase database, string table)
    {
        var holder = new NpgsqlConnection(database.ConnectionString);
        await holder.OpenAsync(TestTimeout.Token);
        var transaction = await holder.BeginTransactionAsync(TestTimeout.Token);
        await using var command = new NpgsqlCommand($"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE", holder, transaction);
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
        var observer = new NpgsqlConnection(database.ConnectionString);
        await observer.OpenAsync(TestTimeout.Token);
        return new TableLock(holder, transaction, observer);
    }

    /// <summary>Statements of other backends of the database that are running and waiting on a lock.</summary>
    public async Task<IReadOnlyList<string>> WaitingStatementsAsync()
    {
        await using var command = new NpgsqlCommand("""
            SELECT query FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> $1
              AND state = 'active' AND wait_event_type = 'Lock'
            """, _observer);
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = _holder.ProcessID });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        var statements = new List<string>();
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            statements.Add(reader.GetString(0));
        }

        return statements;
    }

    /// <summary>
    /// Polls while <paramref name="call"/> runs, for at most <paramref name="atMost"/>; true if a
    /// statement was seen waiting on the lock meanwhile.
    /// </summary>
    public async Task<bool> SawAStatementWaitingWhileAsync(Task call, TimeSpan atMost)
    {
        var seen = false;
        var until = DateTime.UtcNow + atMost;
        while (!call.IsCompleted && DateTime.UtcNow < until)
        {
            seen |= (await WaitingStatementsAsync()).Count > 0;
            await Task.WhenAny(call, Task.Delay(PollInterval, TestTimeout.Token));
        }

        return seen;
    }

    /// <summary>Polls up to <paramref name="within"/> for no statement to be waiting; returns those still waiting.</summary>
    public async Task<IReadOnlyList<string>> StillWaitingAfterAsync(TimeSpan within)
    {
        var deadline = DateTime.UtcNow + within;
        while (true)
        {
            var waiting = await WaitingStatementsAsync();
            if (waiting.Count == 0 || DateTime.UtcNow >= deadline)
            {
                return waiting;
            }

            await Task.Delay(PollInterval, TestTimeout.Token);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _transaction.RollbackAsync(TestTimeout.Token);
        await _transaction.DisposeAsync();
        await _holder.DisposeAsync();
        await _observer.DisposeAsync();
    }
}
