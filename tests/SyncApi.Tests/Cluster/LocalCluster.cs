using System.Diagnostics;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The local 3-node cluster (etcd + three Patroni-managed PostgreSQL 15 nodes, synchronous
/// replication) started by <c>deploy/local-cluster/cluster.sh up</c> for one test class, on loopback
/// ports and a data directory under /tmp of its own, and removed with <c>down --purge</c> at the end.
/// Needs the Debian packages <c>patroni</c>, <c>etcd-server</c>, <c>etcd-client</c> and <c>pgbackrest</c>
/// (<c>.ci/run</c> installs them); without them the class fails with a message that says so.
/// </summary>
public class LocalCluster : IAsyncLifetime
{
    private static readonly TimeSpan ScriptLimit = TimeSpan.FromSeconds(90);

    /// <summary>Three nodes of at most 60 s each, and the switchover.</summary>
    private static readonly TimeSpan RollingUpgradeLimit = TimeSpan.FromSeconds(240);

    private readonly string _script = Path.Combine(RepositoryRoot(), "deploy", "local-cluster", "cluster.sh");
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "kobo-sync-cluster-test-" + Guid.NewGuid().ToString("N")[..12]);
    private int _pgPort;
    private int _restPort;
    private int _etcdPort;

    /// <summary>The read-write string (<c>Target Session Attributes=primary</c>) <c>up</c> printed.</summary>
    public string ConnectionString { get; private set; } = string.Empty;

    /// <summary>The read string (<c>prefer-standby</c>, load balanced) <c>up</c> printed.</summary>
    public string ReadConnectionString { get; private set; } = string.Empty;

    /// <summary>The cluster's state directory (<c>KOBO_CLUSTER_DIR</c>).</summary>
    public string StateDirectory => _directory;

    /// <summary>The nodes' Patroni REST ports (each serves <c>GET /metrics</c>).</summary>
    public IReadOnlyList<int> PatroniRestPorts => [_restPort, _restPort + 1, _restPort + 2];

    /// <summary>How long <c>up</c> took, for the test output.</summary>
    public TimeSpan StartTime { get; private set; }

    public async Task InitializeAsync()
    {
        var missing = new[] { "patroni", "patronictl", "etcd", "etcdctl", "pgbackrest" }.Where(tool => !OnPath(tool)).ToList();
        if (missing.Count > 0)
        {
            throw new InvalidOperationException(
                $"The cluster tests need {string.Join(", ", missing)} on PATH: apt-get install patroni etcd-server etcd-client pgbackrest (.ci/run installs them).");
        }

        _pgPort = LoopbackPorts.FreeRun(3);
        _restPort = LoopbackPorts.FreeRun(3);
        _etcdPort = LoopbackPorts.FreeRun(2);
        var clock = Stopwatch.StartNew();
        var output = await RunAsync("up");
        StartTime = clock.Elapsed;
        ConnectionString = StringNamed(output, "Storage__ConnectionString");
        ReadConnectionString = StringNamed(output, "Storage__ReadConnectionString");
    }

    /// <summary>
    /// kill -9 of the leader's postmaster (its Patroni stays), or with <paramref name="wholeNode"/> of
    /// its Patroni and PostgreSQL together (a lost machine); returns the killed node's name.
    /// </summary>
    public async Task<string> KillLeaderAsync(bool wholeNode = false) =>
        (wholeNode ? await RunAsync("kill-leader", "--node") : await RunAsync("kill-leader")).Trim().Split('\n')[^1].Trim();

    /// <summary>Starts a node again (Patroni rejoins it as a replica, rewinding it if needed).</summary>
    public Task RestartAsync(string node) => RunAsync("restart", node);

    /// <summary>
    /// Patroni's maintenance mode on or off on every node: while on, Patroni changes nothing in PostgreSQL
    /// (a standby's paused replay stays paused; Patroni resumes it within a loop otherwise).
    /// </summary>
    public Task MaintenanceAsync(bool on) => RunAsync("maintenance", on ? "on" : "off");

    /// <summary>Waits until one leader and two replicas (one synchronous) run again.</summary>
    public Task WaitHealthyAsync(int seconds) => RunAsync("wait", seconds.ToString(System.Globalization.CultureInfo.InvariantCulture));

    /// <summary>
    /// <c>rolling-upgrade</c>: each node stopped and started in turn, replicas first, the leader last
    /// (moved away by a planned switchover first); returns its lines <c>NODE down SECONDS s</c>.
    /// </summary>
    public Task<string> RollingUpgradeAsync() => RunLimitedAsync(RollingUpgradeLimit, "rolling-upgrade");

    /// <summary>Runs <c>cluster.sh</c> with <paramref name="arguments"/>, allowing it <paramref name="limit"/>; returns its standard output.</summary>
    public Task<string> RunAsync(TimeSpan limit, params string[] arguments) => RunLimitedAsync(limit, arguments);

    /// <summary>Extra <c>cluster.sh</c> settings (environment) of a fixture built on this one.</summary>
    protected virtual IReadOnlyDictionary<string, string> Settings { get; } = new Dictionary<string, string>();

    /// <summary>The Patroni member list (<c>patronictl list</c>).</summary>
    public Task<string> StatusAsync() => RunAsync("status");

    /// <summary>
    /// The service in process on real Kestrel (REST at <paramref name="rest"/>), on the cluster's read-write
    /// and read strings, with <paramref name="settings"/> besides.
    /// </summary>
    public SyncApiFactory StartService(Uri rest, IReadOnlyDictionary<string, string?>? settings = null)
    {
        var all = new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = ConnectionString,
            ["Storage:ReadConnectionString"] = ReadConnectionString,
        };
        foreach (var (key, value) in settings ?? new Dictionary<string, string?>())
        {
            all[key] = value;
        }

        var factory = new SyncApiFactory(all);
        factory.UseKestrel();
        factory.StartServer();
        return factory;
    }

    /// <summary>
    /// The superuser's string to one node (0 to 2) alone, for what the service's own user may not do
    /// (pausing a standby's replay).
    /// </summary>
    public string SuperuserConnectionString(int node) => new NpgsqlConnectionStringBuilder
    {
        Host = "127.0.0.1",
        Port = _pgPort + node,
        Database = "kobo_sync",
        Username = File.ReadAllText(Path.Combine(_directory, "secrets", "superuser-name")).Trim(),
        Password = File.ReadAllText(Path.Combine(_directory, "secrets", "superuser")).Trim(),
        Pooling = false,
        Timeout = 5,
    }.ConnectionString;

    public async Task DisposeAsync()
    {
        try
        {
            await RunAsync("down", "--purge");
        }
        finally
        {
            if (Directory.Exists(_directory))
            {
                Directory.Delete(_directory, recursive: true);
            }
        }
    }

    /// <summary>
    /// <c>deploy/local-cluster/exporters.sh</c> on this cluster, its postgres and node exporters from
    /// the given first ports (one per node); <c>down</c> stops them with the cluster.
    /// </summary>
    public Task<string> ExportersAsync(int postgresExporterPort, int nodeExporterPort, params string[] arguments) =>
        RunScriptAsync(
            Path.Combine(Path.GetDirectoryName(_script)!, "exporters.sh"),
            ScriptLimit,
            new Dictionary<string, string>
            {
                ["KOBO_CLUSTER_PG_EXPORTER_PORT"] = postgresExporterPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["KOBO_CLUSTER_NODE_EXPORTER_PORT"] = nodeExporterPort.ToString(System.Globalization.CultureInfo.InvariantCulture),
            },
            arguments);

    private Task<string> RunAsync(params string[] arguments) => RunLimitedAsync(ScriptLimit, arguments);

    private Task<string> RunLimitedAsync(TimeSpan scriptLimit, params string[] arguments) =>
        RunScriptAsync(_script, scriptLimit, new Dictionary<string, string>(), arguments);

    private async Task<string> RunScriptAsync(string script, TimeSpan scriptLimit, IReadOnlyDictionary<string, string> environment, params string[] arguments)
    {
        var start = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = "/" };
        start.ArgumentList.Add(script);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["KOBO_CLUSTER_DIR"] = _directory;
        start.Environment["KOBO_CLUSTER_PG_PORT"] = _pgPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["KOBO_CLUSTER_REST_PORT"] = _restPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["KOBO_CLUSTER_ETCD_PORT"] = _etcdPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        foreach (var (name, value) in Settings.Concat(environment))
        {
            start.Environment[name] = value;
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("bash did not start");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(scriptLimit);
        try
        {
            await process.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{Path.GetFileName(script)} {string.Join(' ', arguments)} did not end in {scriptLimit.TotalSeconds} s: {await stderr}");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{Path.GetFileName(script)} {string.Join(' ', arguments)} exited with {process.ExitCode}: {await stderr}{await stdout}");
        }

        return await stdout;
    }

    private static string StringNamed(string output, string name)
    {
        var line = output.Split('\n').Select(l => l.Trim()).FirstOrDefault(l => l.StartsWith(name + "=", StringComparison.Ordinal))
            ?? throw new InvalidOperationException($"cluster.sh up printed no {name}: {output}");
        return line[(name.Length + 1)..].Trim('"');
    }

    private static bool OnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Any(dir => File.Exists(Path.Combine(dir, tool)));

    private static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "deploy", "local-cluster", "cluster.sh")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("deploy/local-cluster/cluster.sh not found above " + AppContext.BaseDirectory);
    }
}
