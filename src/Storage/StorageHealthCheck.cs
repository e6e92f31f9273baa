using Kobo.Sync.Storage.Resilience;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>
/// Ready when the database answers <c>SELECT 1</c> within <c>Resilience:ReadinessProbeTimeoutMs</c>,
/// the schema is migrated and the demo seed (if on) is in, and the service is not shutting down. The
/// probe asks the database directly (not through the circuit breaker), so readiness reports the
/// database as it is: unready within one probe of losing it, ready within one probe of its return.
/// </summary>
public sealed class StorageHealthCheck(
    StorageReadiness readiness,
    NpgsqlDataSource dataSource,
    IOptions<ResilienceOptions> options,
    IHostApplicationLifetime lifetime) : IHealthCheck
{
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        if (lifetime.ApplicationStopping.IsCancellationRequested)
        {
            return HealthCheckResult.Unhealthy("The service is shutting down.");
        }

        if (!readiness.Migrated)
        {
            return HealthCheckResult.Unhealthy("Schema migrations have not been applied yet (is the database reachable?).");
        }

        if (!readiness.Seeded)
        {
            return HealthCheckResult.Unhealthy("Demo data is still being seeded.");
        }

        using var probe = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        probe.CancelAfter(options.Value.ReadinessProbeTimeoutMs);
        try
        {
            await using var command = dataSource.CreateCommand("SELECT 1");
            await DatabaseCancellation.RunAsync(command, static (c, ct) => c.ExecuteScalarAsync(ct), probe.Token).ConfigureAwait(false);
            return HealthCheckResult.Healthy();
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            return HealthCheckResult.Unhealthy($"The database did not answer within {options.Value.ReadinessProbeTimeoutMs} ms.", e);
        }
        catch (Exception e) when (e is NpgsqlException or TimeoutException)
        {
            return HealthCheckResult.Unhealthy("The database does not answer.", e);
        }
    }
}
