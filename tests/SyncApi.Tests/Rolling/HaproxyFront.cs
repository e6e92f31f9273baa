using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>
/// A class fixture: a migrated database of its own holding users 1..<see cref="Users"/> and books
/// 1..20, two instances of the service as real processes (the test's build of
/// <c>Kobo.Sync.SyncApi.dll</c>, stopped with SIGTERM as in production) and HAProxy in front of them,
/// all started by <c>deploy/local-haproxy/rolling.sh up</c> on loopback ports of their own and stopped
/// by <c>down</c>.
/// </summary>
public sealed partial class HaproxyFront : PostgresDatabase
{
    public const int Users = 20;

    private static readonly TimeSpan ScriptLimit = TimeSpan.FromMinutes(3);

    private readonly string _script = Path.Combine(RepositoryRoot(), "deploy", "local-haproxy", "rolling.sh");
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "kobo-sync-haproxy-test-" + Guid.NewGuid().ToString("N")[..12]);
    private readonly int _front = LoopbackPorts.Free();
    private readonly int _admin = LoopbackPorts.Free();
    private readonly int[] _rest = [LoopbackPorts.Free(), LoopbackPorts.Free()];
    private readonly int[] _grpc = [LoopbackPorts.Free(), LoopbackPorts.Free()];

    public static bool Installed => File.Exists("/usr/sbin/haproxy") || OnPath("haproxy");

    /// <summary>HAProxy's front: what devices call.</summary>
    public Uri Front => new($"http://127.0.0.1:{_front}");

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using (var command = DataSource.CreateCommand($"""
            INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, {Users}) n;
            INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n;
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await RunAsync("up");
    }

    /// <summary>
    /// <c>rolling.sh roll</c> (<c>--hard</c>: SIGKILL without draining): each instance's seconds out
    /// of rotation, in order, and the script's output.
    /// </summary>
    public async Task<(IReadOnlyList<double> OutOfRotation, string Output)> RollAsync(bool hard = false)
    {
        var output = hard ? await RunAsync("roll", "--hard") : await RunAsync("roll");
        var seconds = OutOfRotationLine().Matches(output)
            .Select(match => double.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture)).ToList();
        Assert.True(seconds.Count == 2, $"rolling.sh roll did not report both instances:\n{output}");
        return (seconds, output);
    }

    /// <summary><c>rolling.sh status</c>: per server its state, sessions, total, retries and redispatches.</summary>
    public Task<string> StatusAsync() => RunAsync("status");

    /// <summary><c>rolling.sh state N drain|maint|ready</c>.</summary>
    public Task SetStateAsync(int n, string state) => RunAsync("state", n.ToString(CultureInfo.InvariantCulture), state);

    public override async Task DisposeAsync()
    {
        try
        {
            await RunAsync("down");
        }
        finally
        {
            if (Directory.Exists(_directory))
            {
                Directory.Delete(_directory, recursive: true);
            }

            await base.DisposeAsync();
        }
    }

    private async Task<string> RunAsync(params string[] arguments)
    {
        var start = new ProcessStartInfo("bash")
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(_script);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["Storage__ConnectionString"] = ConnectionString;
        start.Environment["Auth__SigningKey"] = TestTokens.SigningKey;
        start.Environment["Paging__CursorKey"] = TestTokens.CursorKey;
        // What is tested is the roll, not the database's answer time on a busy test machine.
        start.Environment["Resilience__RequestBudgetMs"] = SyncApiFactory.FunctionalRequestBudgetMs;
        start.Environment["KOBO_SYNCAPI_DLL"] = Path.Combine(AppContext.BaseDirectory, "Kobo.Sync.SyncApi.dll");
        start.Environment["KOBO_HAPROXY_DIR"] = _directory;
        start.Environment["KOBO_HAPROXY_PORT"] = _front.ToString(CultureInfo.InvariantCulture);
        start.Environment["KOBO_HAPROXY_ADMIN_PORT"] = _admin.ToString(CultureInfo.InvariantCulture);
        start.Environment["KOBO_SYNCAPI_REST_PORTS"] = string.Join(' ', _rest);
        start.Environment["KOBO_SYNCAPI_GRPC_PORTS"] = string.Join(' ', _grpc);
        start.Environment["KOBO_HAPROXY_DRAIN_SECONDS"] = "5";

        using var script = Process.Start(start)!;
        var output = script.StandardOutput.ReadToEndAsync();
        var errors = script.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(ScriptLimit);
        try
        {
            await script.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException)
        {
            script.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"rolling.sh {string.Join(' ', arguments)} did not end within {ScriptLimit}:\n{await errors}");
        }

        var text = await output + await errors;
        if (script.ExitCode != 0)
        {
            throw new InvalidOperationException($"rolling.sh {string.Join(' ', arguments)} failed ({script.ExitCode}):\n{text}\n{InstanceLogTails()}");
        }

        return text;
    }

    private string InstanceLogTails() => string.Join('\n', Enumerable.Range(1, 2).Select(n =>
    {
        var log = Path.Combine(_directory, $"instance{n}.log");
        return File.Exists(log) ? $"instance {n}, last lines:\n" + string.Join('\n', File.ReadLines(log).TakeLast(20)) : string.Empty;
    }));

    private static bool OnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(':').Any(directory => File.Exists(Path.Combine(directory, tool)));

    private static string RepositoryRoot()
    {
        var directory = new DirectoryInfo(AppContext.BaseDirectory);
        while (directory is not null && !File.Exists(Path.Combine(directory.FullName, "Kobo.Sync.sln")))
        {
            directory = directory.Parent;
        }

        return directory?.FullName ?? throw new InvalidOperationException("Kobo.Sync.sln not found above " + AppContext.BaseDirectory);
    }

    [GeneratedRegex(@"^instance \d: out of rotation ([0-9.]+) s", RegexOptions.Multiline)]
    private static partial Regex OutOfRotationLine();
}
