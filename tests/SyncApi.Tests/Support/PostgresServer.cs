using Kobo.Sync.DevServer.Embedded;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The one PostgreSQL server of a test run, started on first use with the service's own launcher into
/// a fresh directory under /tmp (traversable by the <c>postgres</c> user, which runs it when tests run
/// as root), with throw-away durability settings. Stopped when the test process exits; if the test
/// host is killed, the server's death signal stops it. Test classes each get their own database on it
/// (see <see cref="PostgresDatabase"/>).
/// </summary>
public static class PostgresServer
{
    private const string ScratchPrefix = "kobo-sync-tests-";

    private static readonly Lazy<Task<EmbeddedPostgres>> Server = new(StartAsync, LazyThreadSafetyMode.ExecutionAndPublication);

    public static Task<EmbeddedPostgres> GetAsync() => Server.Value;

    /// <summary>
    /// A directory under /tmp that the <c>postgres</c> user can traverse. Delete it with
    /// <see cref="DeleteScratchDirectory"/> once its server is stopped; a later run sweeps what is left.
    /// </summary>
    public static string NewScratchDirectory() => CreateScratchDirectory();

    public static void DeleteScratchDirectory(string path) => TryDelete(path);

    private static string CreateScratchDirectory()
    {
        var path = Path.Combine(Path.GetTempPath(), ScratchPrefix + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(path,
            UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
            | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
        return path;
    }

    private static async Task<EmbeddedPostgres> StartAsync()
    {
        SweepLeftovers();
        var scratch = CreateScratchDirectory();
        var settings = new EmbeddedPostgresSettings
        {
            DataDirectory = Path.Combine(scratch, "pgdata"),
            Port = LoopbackPorts.Free(),
            Database = "postgres",
            ThrowAway = true,
        };
        var server = await EmbeddedPostgres.StartAsync(settings);
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            server.StopAsync().GetAwaiter().GetResult();
            TryDelete(scratch);
        };
        return server;
    }

    /// <summary>
    /// The test host is often ended without running exit handlers (its servers then stop on their death
    /// signal), so scratch directories of earlier runs are removed here: those older than a minute with
    /// no live server in them (a concurrent run's directories are younger, or hold its live server).
    /// </summary>
    private static void SweepLeftovers()
    {
        foreach (var dir in Directory.EnumerateDirectories(Path.GetTempPath(), ScratchPrefix + "*"))
        {
            try
            {
                if (Directory.GetLastWriteTimeUtc(dir) > DateTime.UtcNow.AddMinutes(-1))
                {
                    continue;
                }

                var live = Directory.EnumerateDirectories(dir)
                    .Select(PostmasterPidFile.TryRead)
                    .Any(pid => pid is not null && NativeMethods.IsAlive(pid.Pid));
                if (!live)
                {
                    TryDelete(dir);
                }
            }
            catch (IOException)
            {
                // Another run swept the same leftover first (DirectoryNotFoundException is an IOException).
            }
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            Directory.Delete(path, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
