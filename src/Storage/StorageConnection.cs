using Microsoft.Extensions.Options;

namespace Kobo.Sync.Storage;

/// <summary>
/// The connection string the service uses: the configured one, or that of the embedded server (a development
/// build's <see cref="IEmbeddedServerLauncher"/>), which this holder starts on first use and stops (fast
/// shutdown) when the host disposes it. The startup
/// step starts it asynchronously before migrations; anything resolving the data source earlier gets
/// it started synchronously instead (DI factories cannot await), so resolution order never matters.
/// </summary>
public sealed class StorageConnection(
    IOptions<StorageOptions> options, IEmbeddedServerLauncher? launcher = null) : IAsyncDisposable, IDisposable
{
    private readonly SemaphoreSlim _gate = new(1, 1);
    private IEmbeddedServer? _embedded;
    private string? _connectionString;

    /// <summary>The embedded server, when one is used and started.</summary>
    public IEmbeddedServer? Embedded => _embedded;

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
                    _embedded = await (launcher ?? throw NoEmbeddedServer())
                        .StartAsync(storage.Embedded, cancellationToken).ConfigureAwait(false);
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

    private static InvalidOperationException NoEmbeddedServer() => new(
        $"{StorageOptions.SectionName}:{nameof(StorageOptions.ConnectionString)} is empty and this build carries no embedded PostgreSQL " +
        $"server " +
        "(a published service): set it to the database's Npgsql connection string.");

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
