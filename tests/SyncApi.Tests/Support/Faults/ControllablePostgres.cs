using Kobo.Sync.DevServer.Embedded;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// A PostgreSQL server of one test class's own (the run's shared server must stay up for the
/// others), that the test stops, freezes with SIGSTOP, thaws and restarts on the same port and data.
/// </summary>
public sealed class ControllablePostgres : IAsyncLifetime
{
    private const int SigCont = 18;
    private const int SigStop = 19;

    private readonly string _scratch = PostgresServer.NewScratchDirectory();
    private EmbeddedPostgresSettings? _settings;
    private EmbeddedPostgres? _server;

    public string ConnectionString { get; private set; } = string.Empty;

    public int Port => _settings?.Port ?? throw new InvalidOperationException("Not started.");

    public async Task InitializeAsync()
    {
        _settings = new EmbeddedPostgresSettings
        {
            DataDirectory = Path.Combine(_scratch, "pgdata"),
            Port = LoopbackPorts.Free(),
            Database = "kobo_sync",
            ThrowAway = true,
        };
        await StartAsync();
    }

    public async Task StartAsync()
    {
        _server = await EmbeddedPostgres.StartAsync(_settings!);
        ConnectionString = _server.ConnectionString;
    }

    /// <summary>Fast shutdown: connections are closed, new ones refused.</summary>
    public async Task StopAsync()
    {
        if (_server is not null)
        {
            await _server.StopAsync();
            _server = null;
        }
    }

    /// <summary>Freezes every process of the server (postmaster and backends): connections stay open, nothing answers.</summary>
    public void Freeze() => SignalAll(SigStop);

    public void Thaw() => SignalAll(SigCont);

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            Thaw();
            await _server.DisposeAsync();
        }

        PostgresServer.DeleteScratchDirectory(_scratch);
    }

    private void SignalAll(int signal)
    {
        var postmaster = _server?.ProcessId ?? throw new InvalidOperationException("The server is not running.");
        // The postmaster's children are its backends and helpers; freezing only the postmaster would
        // leave open connections answering.
        foreach (var pid in ChildrenOf(postmaster).Prepend(postmaster))
        {
            NativeSignal(pid, signal);
        }
    }

    private static IEnumerable<int> ChildrenOf(int parent)
    {
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(dir), out var pid))
            {
                continue;
            }

            string stat;
            try
            {
                stat = File.ReadAllText(Path.Combine(dir, "stat"));
            }
            catch (IOException)
            {
                continue;
            }

            // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
            var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            if (fields.Length > 1 && int.TryParse(fields[1], out var ppid) && ppid == parent)
            {
                yield return pid;
            }
        }
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);

    private static void NativeSignal(int pid, int signal) => _ = Kill(pid, signal);
}
