using System.Diagnostics;
using System.Text.Json;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Interop;

/// <summary>
/// One of the independent gRPC clients of tests/interop, run as a child process: @grpc/grpc-js on
/// Node.js, or Debian's python3-grpcio. Each prints one JSON line with the response or the status.
/// </summary>
public sealed class InteropClient
{
    public const string DebianPython = "/usr/bin/python3";

    private readonly string _fileName;
    private readonly string[] _prefix;

    private InteropClient(string name, string fileName, params string[] prefix)
    {
        Name = name;
        _fileName = fileName;
        _prefix = prefix;
    }

    public string Name { get; }

    public static InteropClient Node => new("node", "node", Path.Combine(RepositoryRoot, "tests", "interop", "node", "client.mjs"));

    public static InteropClient Python => new("python", DebianPython, Path.Combine(RepositoryRoot, "tests", "interop", "python", "client.py"));

    public static string RepositoryRoot { get; } = FindRepositoryRoot();

    /// <summary>Why the Node client cannot run here, or null when it can.</summary>
    public static string? NodeUnavailableReason()
    {
        if (!Runs("node", "--version"))
        {
            return "Node.js is not installed (Debian: apt-get install nodejs npm); the @grpc/grpc-js interop tests need it.";
        }

        // Installed but not set up is a broken checkout, not a reason to skip: the call fails and says so.
        return null;
    }

    /// <summary>Why the Python client cannot run here, or null when it can.</summary>
    public static string? PythonUnavailableReason() =>
        Runs(DebianPython, "-c", "import grpc")
            ? null
            : $"{DebianPython} with grpc is not available (Debian: apt-get install python3-grpcio python3-protobuf); the python3-grpcio interop tests need it.";

    /// <summary>Calls <paramref name="method"/> (<c>package.Service/Method</c>) and returns the client's JSON result.</summary>
    public async Task<InteropResult> CallAsync(
        string target, string method, string requestJson, IEnumerable<KeyValuePair<string, string>>? metadata = null, int? deadlineMs = null)
    {
        List<string> arguments = [.. _prefix, target, method, requestJson];
        foreach (var (key, value) in metadata ?? [])
        {
            arguments.AddRange(["--metadata", $"{key}={value}"]);
        }

        if (deadlineMs is { } ms)
        {
            arguments.AddRange(["--deadline-ms", ms.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        }

        return await RunAsync(arguments);
    }

    /// <summary>
    /// Asks <paramref name="target"/> through server reflection (grpc.reflection.v1) which services it
    /// has, and which file declares <paramref name="symbol"/>: @grpc/grpc-js, with the reflection .proto of @grpc/reflection.
    /// </summary>
    public static Task<InteropResult> ReflectAsync(string target, string symbol, IEnumerable<KeyValuePair<string, string>>? metadata = null) =>
        Node.RunAsync([
            Path.Combine(RepositoryRoot, "tests", "interop", "node", "reflect.mjs"), target, symbol,
            .. (metadata ?? []).SelectMany(m => new[] { "--metadata", $"{m.Key}={m.Value}" })]);

    private async Task<InteropResult> RunAsync(IEnumerable<string> arguments)
    {
        if (Name == "node" && !Directory.Exists(Path.Combine(RepositoryRoot, "tests", "interop", "node", "node_modules", "@grpc", "grpc-js")))
        {
            throw new InvalidOperationException("The Node interop client is not installed: run `npm ci --prefix tests/interop/node` (tests/run.sh does).");
        }

        var start = new ProcessStartInfo(_fileName)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = RepositoryRoot,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{_fileName} did not start.");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var stdout = process.StandardOutput.ReadToEndAsync(timeout.Token);
        var stderr = process.StandardError.ReadToEndAsync(timeout.Token);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"The {Name} client did not finish within 30 s.");
        }

        var output = (await stdout).Trim();
        if (process.ExitCode != 0 || output.Length == 0)
        {
            throw new InvalidOperationException($"The {Name} client exited {process.ExitCode}: {output} {await stderr}");
        }

        return new InteropResult(JsonDocument.Parse(output).RootElement.Clone());
    }

    private static bool Runs(string fileName, params string[] arguments)
    {
        try
        {
            var start = new ProcessStartInfo(fileName) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (var argument in arguments)
            {
                start.ArgumentList.Add(argument);
            }

            using var process = Process.Start(start);
            if (process is null || !process.WaitForExit(TimeSpan.FromSeconds(20)))
            {
                return false;
            }

            return process.ExitCode == 0;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return false;
        }
    }

    private static string FindRepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Kobo.Sync.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No Kobo.Sync.sln above {AppContext.BaseDirectory}.");
    }
}

/// <summary>What an interop client printed: <c>{"ok":true,"response":{...}}</c> or <c>{"ok":false,"code":N,...}</c>.</summary>
public sealed record InteropResult(JsonElement Json)
{
    public bool Ok => Json.GetProperty("ok").GetBoolean();

    public int Code => Ok ? 0 : Json.GetProperty("code").GetInt32();

    public string Details => Ok ? string.Empty : Json.GetProperty("details").GetString() ?? string.Empty;

    public JsonElement Response => Json.GetProperty("response");

    public override string ToString() => Json.GetRawText();
}

/// <summary>A test that needs Node.js; skipped, with the reason, where it is not installed.</summary>
public sealed class NodeInteropFactAttribute : FactAttribute
{
    private static readonly string? UnavailableReason = InteropClient.NodeUnavailableReason();

    public NodeInteropFactAttribute() => Skip = UnavailableReason;
}

/// <summary>A test that needs /usr/bin/python3 with python3-grpcio; skipped, with the reason, where it is absent.</summary>
public sealed class PythonInteropFactAttribute : FactAttribute
{
    private static readonly string? UnavailableReason = InteropClient.PythonUnavailableReason();

    public PythonInteropFactAttribute() => Skip = UnavailableReason;
}
