using Microsoft.Extensions.Diagnostics.HealthChecks;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>Ready when the database answers, the schema is migrated and the demo seed (if on) is in.</summary>
internal sealed class StorageHealthCheck(StorageReadiness readiness, NpgsqlDataSource dataSource) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        if (!readiness.Migrated)
        {
            return HealthCheckResult.Unhealthy("Schema migrations have not been applied yet.");
        }

        if (!readiness.Seeded)
        {
            return HealthCheckResult.Unhealthy("Demo data is still being seeded.");
        }

        try
        {
            await using var command = dataSource.CreateCommand("SELECT 1");
            await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false);
            return HealthCheckResult.Healthy();
        }
        catch (Exception e) when (e is NpgsqlException or TimeoutException)
        {
            return HealthCheckResult.Unhealthy("The database does not answer.", e);
        }
    }
}
