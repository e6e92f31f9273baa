using Kobo.Sync.SyncApi.Infrastructure.Storage.Embedded;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// The connection string the service uses: the configured one, or that of the embedded server, which
/// this holder starts on first use and stops (fast shutdown) when the host disposes it. The startup
/// step starts it asynchronously before migrations; anything resolving the data source earlier gets
/// it started synchronously instead (DI factories cannot await), so resolution order never matters.
/// </summary>
public sealed class StorageConnection(IOptions<StorageOptions> options, ILogger<EmbeddedPostgres> logger) : IAsyncDisposable, IDisposable
{
    private readonly SemaphoreSlim _gate = new(1, 1);
    private EmbeddedPostgres? _embedded;
    private string? _connectionString;

    /// <summary>The embedded server, when one is used and started.</summary>
    public EmbeddedPostgres? Embedded => _embedded;

    public async Task<string> GetConnectionStringAsync(CancellationToken cancellationToken)
    {
        if (_connectionString is not null)
        {
            return _connectionString;
        }

        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_connectionString is null)
            {
                var storage = options.Value;
                if (storage.UsesEmbeddedServer)
                {
                    _embedded = await EmbeddedPostgres.StartAsync(
                        new EmbeddedPostgresSettings
                        {
                            DataDirectory = storage.Embedded.FullDataDirectory,
                            Port = storage.Embedded.Port,
                            Database = storage.Embedded.Database,
                        },
                        logger,
                        cancellationToken).ConfigureAwait(false);
                    _connectionString = _embedded.ConnectionString;
                }
                else
                {
                    _connectionString = storage.ConnectionString;
                }
            }

            return _connectionString;
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>The same, for synchronous callers (the data source factory).</summary>
    public string GetConnectionString() =>
        _connectionString ?? GetConnectionStringAsync(CancellationToken.None).GetAwaiter().GetResult();

    /// <summary>Host, port, database and user of the connection string: safe to log.</summary>
    public string LogSafe() => _embedded?.LogSafeConnectionString ?? StorageDataSource.LogSafe(GetConnectionString());

    public async ValueTask DisposeAsync()
    {
        if (_embedded is not null)
        {
            await _embedded.DisposeAsync().ConfigureAwait(false);
        }

        _gate.Dispose();
    }

    /// <summary>For hosts disposed synchronously: the server still gets its fast shutdown.</summary>
    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();
}
