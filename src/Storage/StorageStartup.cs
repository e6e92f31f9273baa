using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.Storage.Schema;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>
/// Storage comes up before the service reports ready: the embedded server (when used), then the
/// schema migrations, then the startup seeds (a development run's demo data, <see cref="IStartupSeed"/>).
/// The first attempt runs during the host's start, so a reachable database is migrated before the
/// first request. A database that cannot be reached does not stop the start: the service listens,
/// answers unready (and 503 to device calls), and keeps trying every <c>Resilience:StartRetryDelayMs</c>
/// in the background until the database answers. A database that answers with a refusal that
/// waiting will not cure (wrong password, missing database, a failed migration) still fails the start.
/// </summary>
public sealed partial class StorageStartup(
    StorageConnection connection,
    IServiceProvider services,
    StorageReadiness readiness,
    IEnumerable<IStartupSeed> seeds,
    IOptions<ResilienceOptions> resilience,
    ILogger<StorageStartup> logger) : IHostedService
{
    private readonly CancellationTokenSource _stopping = new();
    private Task _retries = Task.CompletedTask;

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        await connection.GetConnectionStringAsync(cancellationToken).ConfigureAwait(false);
        logger.LogInformation("Storage: {ConnectionString}", connection.LogSafe());

        try
        {
            await PrepareAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (IsUnreachable(e) && !cancellationToken.IsCancellationRequested)
        {
            LogUnreachable(logger, resilience.Value.StartRetryDelayMs, e.Message);
            _retries = RetryUntilPreparedAsync(_stopping.Token);
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        await _retries.WaitAsync(cancellationToken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
    }

    private async Task RetryUntilPreparedAsync(CancellationToken stopping)
    {
        var delay = TimeSpan.FromMilliseconds(resilience.Value.StartRetryDelayMs);
        while (!stopping.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(delay, stopping).ConfigureAwait(false);
                await PrepareAsync(stopping).ConfigureAwait(false);
                LogPrepared(logger);
                return;
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (IsUnreachable(e))
            {
                LogStillUnreachable(logger, e.Message);
            }
            catch (Exception e)
            {
                // Nothing to wait for any more; the service stays unready and says why.
                LogGaveUp(logger, e);
                return;
            }
        }
    }

    private async Task PrepareAsync(CancellationToken cancellationToken)
    {
        var dataSource = services.GetRequiredService<NpgsqlDataSource>();
        await services.GetRequiredService<SchemaMigrator>().MigrateAsync(cancellationToken).ConfigureAwait(false);
        readiness.MarkMigrated();

        foreach (var seed in seeds)
        {
            await seed.SeedAsync(dataSource, cancellationToken).ConfigureAwait(false);
        }

        readiness.MarkSeeded();
    }

    /// <summary>The database is down, restarting or out of reach: worth waiting for.</summary>
    private static bool IsUnreachable(Exception e) =>
        StorageFaults.IsTransient(e) || (e is NpgsqlException and not PostgresException);

    [LoggerMessage(
        Level = LogLevel.Warning, Message = "Storage is unreachable at start ({Reason}); serving unready and retrying every {DelayMs} ms")]
    private static partial void LogUnreachable(ILogger logger, int delayMs, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Storage still unreachable: {Reason}")]
    private static partial void LogStillUnreachable(ILogger logger, string reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage reachable again: migrated and ready")]
    private static partial void LogPrepared(ILogger logger);

    [LoggerMessage(Level = LogLevel.Error, Message = "Storage preparation failed; the service stays unready")]
    private static partial void LogGaveUp(ILogger logger, Exception exception);
}
