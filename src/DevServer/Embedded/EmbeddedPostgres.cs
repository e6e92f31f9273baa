using Kobo.Sync.Storage;
using Microsoft.Extensions.Logging.Abstractions;
using Npgsql;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>
/// A private PostgreSQL server run from the machine's binaries as a child process: the service's
/// "no setup" default, the test suite's server and the simulator's. Loopback only, its socket in the
/// data directory, SCRAM with a random password kept in the data directory (mode 0600), <c>jit=off</c>.
/// <para>
/// PostgreSQL refuses to run as root, so as root it runs as the <c>postgres</c> system user: initdb
/// through <c>runuser</c>, the server through a single <c>setpriv</c> call that also sets the death
/// signal. The data directory is then owned by <c>postgres</c>, and every parent of it must be
/// traversable by others (o+x). Missing parents are created with mode 0755; an existing parent that
/// is not traversable (say <c>/root</c>) fails the start with a message naming it; the launcher never
/// changes the mode of a directory it did not create.
/// </para>
/// <para>
/// Leftovers: a live server already running on the data directory (another instance, or one whose
/// parent vanished without the death signal) is reused, not stopped, and left running on dispose;
/// a <c>postmaster.pid</c> of a dead server is left to PostgreSQL, which clears it only after checking
/// that no orphaned backend still holds its shared memory (the start is retried while they exit).
/// </para>
/// </summary>
public sealed class EmbeddedPostgres : IEmbeddedServer
{
    public const string PasswordFileName = "kobo-sync.password";
    public const string PostgresUser = "postgres";
    private const int StartAttempts = 5;

    private readonly ServerProcess? _server;
    private readonly ILogger _logger;

    private EmbeddedPostgres(
        EmbeddedPostgresSettings settings, ServerProcess? server, int pid, int port, string password, bool initialized, ILogger logger)
    {
        Settings = settings;
        _server = server;
        _logger = logger;
        ProcessId = pid;
        Initialized = initialized;
        var builder = new NpgsqlConnectionStringBuilder
        {
            Host = "127.0.0.1",
            Port = port,
            Database = settings.Database,
            Username = settings.UserName,
        };
        LogSafeConnectionString = builder.ConnectionString;
        builder.Password = password;
        ConnectionString = builder.ConnectionString;
    }

    public EmbeddedPostgresSettings Settings { get; }

    /// <summary>Connection string with the password.</summary>
    public string ConnectionString { get; }

    /// <summary>Host, port, database and user, without the password: safe to log.</summary>
    public string LogSafeConnectionString { get; }

    /// <summary>The postmaster's process id.</summary>
    public int ProcessId { get; }

    /// <summary>Whether this start created the data directory (ran initdb).</summary>
    public bool Initialized { get; }

    /// <summary>False when a server already running on the data directory was reused.</summary>
    public bool OwnsServer => _server is not null;

    public static async Task<EmbeddedPostgres> StartAsync(
        EmbeddedPostgresSettings settings, ILogger? logger = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(settings);
        logger ??= NullLogger.Instance;
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("The embedded PostgreSQL server runs on Linux; set Storage:ConnectionString instead.");
        }

        if (!Path.IsPathFullyQualified(settings.DataDirectory))
        {
            throw new ArgumentException($"The data directory must be an absolute path (was '{settings.DataDirectory}').", nameof(settings));
        }

        if (!PlainIdentifiers.IsPlainIdentifier(settings.Database) || !PlainIdentifiers.IsPlainIdentifier(settings.UserName))
        {
            throw new ArgumentException("Database and user names must be plain lower-case identifiers.", nameof(settings));
        }

        var binaries = PostgresBinaries.Find(settings.BinariesRoot);
        var dataDirectory = Path.TrimEndingDirectorySeparator(settings.DataDirectory);
        var asRoot = Environment.IsPrivilegedProcess;

        DataDirectoryLayout.EnsureParents(dataDirectory, asRoot);
        using var startLock = await DataDirectoryLayout.LockAsync(
            dataDirectory, settings.StartTimeout, cancellationToken).ConfigureAwait(false);

        var initialized = false;
        if (!File.Exists(Path.Combine(dataDirectory, "PG_VERSION")))
        {
            await InitDb.RunAsync(binaries, settings, dataDirectory, asRoot, cancellationToken).ConfigureAwait(false);
            initialized = true;
        }

        var password = await DataDirectoryLayout.ReadPasswordAsync(dataDirectory, cancellationToken).ConfigureAwait(false);
        EmbeddedPostgres postgres;
        var leftover = PostmasterPidFile.TryRead(dataDirectory);
        if (leftover is not null && leftover.IsLiveServerFor(dataDirectory) && leftover.Port > 0)
        {
            logger.LogInformation("Reusing the PostgreSQL server {Pid} already running on {DataDirectory}", leftover.Pid, dataDirectory);
            postgres = new EmbeddedPostgres(settings, null, leftover.Pid, leftover.Port, password, initialized, logger);
        }
        else
        {
            if (leftover is not null && NativeMethods.IsAlive(leftover.Pid) && !leftover.IsLiveServerFor(dataDirectory))
            {
                // The pid was reused by an unrelated process; PostgreSQL would refuse to start.
                File.Delete(Path.Combine(dataDirectory, PostmasterPidFile.FileName));
            }

            var server = await LaunchAsync(binaries, settings, dataDirectory, asRoot, cancellationToken).ConfigureAwait(false);
            postgres = new EmbeddedPostgres(settings, server, server.Pid, settings.Port, password, initialized, logger);
        }

        try
        {
            await postgres.CreateDatabaseIfMissingAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await postgres.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        return postgres;
    }

    /// <summary>Fast shutdown (SIGINT) of a server this instance started, waiting for it to exit.</summary>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        if (_server is null || _server.HasExited)
        {
            return;
        }

                NativeMethods.Signal(_server.Pid, NativeMethods.SigInt);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(30));
        try
        {
            await _server.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            _logger.LogWarning("PostgreSQL server {Pid} did not stop within 30 s; killing it", _server.Pid);
            NativeMethods.Signal(_server.Pid, NativeMethods.SigKill);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (_server is not null)
        {
            await StopAsync().ConfigureAwait(false);
            _server.Dispose();
        }
    }

    private static async Task<ServerProcess> LaunchAsync(
        PostgresBinaries binaries, EmbeddedPostgresSettings settings,
        string dataDirectory, bool asRoot, CancellationToken cancellationToken)
    {
        List<string> arguments = asRoot
            ? [$"--reuid={PostgresUser}", $"--regid={PostgresUser}", "--init-groups", "--pdeathsig", "SIGINT", "--"]
            : ["--pdeathsig", "SIGINT", "--"];
        arguments.AddRange(
        [
            binaries.Postgres, "-D", dataDirectory, "-p", settings.Port.ToString(System.Globalization.CultureInfo.InvariantCulture),
            "-c", "listen_addresses=127.0.0.1", "-c", $"unix_socket_directories={dataDirectory}", "-c", "jit=off",
            // What each statement costs (calls, blocks, WAL), for whoever measures the service against it.
            "-c", "shared_preload_libraries=pg_stat_statements",
        ]);
        if (settings.ThrowAway)
        {
            arguments.AddRange(["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]);
        }
        else
        {
            // Data that is kept may outgrow memory: the settings shared with the cluster and the scale benchmark.
            LargeDataSettings.Install(dataDirectory, LargeDataSettings.MachineMemoryBytes());
        }

        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(settings.StartTimeout);
        for (var attempt = 1; ; attempt++)
        {
            var server = ServerProcess.Start(ProcessRunner.NewStartInfo("setpriv", arguments));
            try
            {
                while (!server.HasExited)
                {
                    var pid = PostmasterPidFile.TryRead(dataDirectory);
                    if (pid is not null && pid.Pid == server.Pid && pid.Status == "ready")
                    {
                        return server;
                    }

                    await Task.Delay(20, deadline.Token).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                NativeMethods.Signal(server.Pid, NativeMethods.SigKill);
                var tail = server.Tail();
                server.Dispose();
                throw new TimeoutException(
                    $"PostgreSQL on {dataDirectory} was not ready within {settings.StartTimeout.TotalSeconds:0} s: {tail}");
            }

            // Orphaned backends of a killed server hold its shared memory for a moment; retry while they exit.
            var output = server.Tail();
            server.Dispose();
            if (attempt >= StartAttempts || !output.Contains("shared memory block", StringComparison.Ordinal))
            {
                throw new InvalidOperationException(
                    $"PostgreSQL on {dataDirectory}, port {settings.Port}, exited during start (is the port taken? set " +
                    $"Storage:Embedded:Port): {output}");
            }

            await Task.Delay(200 * attempt, deadline.Token).ConfigureAwait(false);
        }
    }

    private async Task CreateDatabaseIfMissingAsync(CancellationToken cancellationToken)
    {
        var admin = new NpgsqlConnectionStringBuilder(ConnectionString) { Database = "postgres", Pooling = false };
        // Named, so that Npgsql's metrics label it by name and not by its connection string.
        await using var source = new NpgsqlDataSourceBuilder(admin.ConnectionString) { Name = "kobo-sync-embedded-admin" }.Build();
        await using var connection = await source.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var exists = new NpgsqlCommand("SELECT 1 FROM pg_database WHERE datname = $1", connection)
        {
            Parameters = { new NpgsqlParameter<string> { TypedValue = Settings.Database } },
        };
        if (await exists.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is null)
        {
            // The name is a checked plain identifier, so it is safe unquoted.
            await using var create = new NpgsqlCommand($"CREATE DATABASE {Settings.Database}", connection);
            try
            {
                await create.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (PostgresException e) when (e.SqlState == PostgresErrorCodes.DuplicateDatabase)
            {
                // Another instance created it first.
            }
        }
    }
}
