using Kobo.Sync.DeviceSimulator.Devices;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>
/// Runs a read straight against PostgreSQL, no service in front, through the service's own read store
/// (the same SQL, prepared the same way), so the report can state what the service itself costs.
/// Connection failures and timeouts are retried like a device's; anything else is a failure.
/// </summary>
public static class PostgresBaseline
{
    public static async ValueTask<SyncAttempt> RunAsync(Func<CancellationToken, Task<bool>> read, CancellationToken cancellationToken)
    {
        try
        {
            return await read(cancellationToken) ? SyncAttempt.Success() : SyncAttempt.Permanent("not found");
        }
        catch (NpgsqlException exception) when (exception.IsTransient)
        {
            return SyncAttempt.Transient("postgres transient");
        }
        catch (NpgsqlException exception)
        {
            return SyncAttempt.Permanent($"postgres {exception.SqlState ?? "error"}");
        }
    }
}
