using System.Diagnostics;
using System.Text;
using Kobo.Sync.DevServer.Embedded;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Alerts;

/// <summary>
/// A monitoring daemon from a Debian package (Alertmanager, the PostgreSQL exporter) run for one test
/// class: started with its arguments, ready once <c>ready</c> answers 200, stopped with SIGTERM (killed if
/// it lingers). A missing binary fails the test naming the package (.ci/run installs it).
/// </summary>
public sealed class MonitoringDaemon : IAsyncDisposable
{
    private const int SigTerm = 15;
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private MonitoringDaemon(Process process)
    {
        _process = process;
        process.OutputDataReceived += (_, e) => Append(e.Data);
        process.ErrorDataReceived += (_, e) => Append(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    public static async Task<MonitoringDaemon> StartAsync(
        string program, string package, IEnumerable<string> arguments, Uri ready, IReadOnlyDictionary<string, string>? environment = null, string? workingDirectory = null)
    {
        var path = Path.Combine("/usr/bin", program);
        if (!File.Exists(path))
        {
            throw new InvalidOperationException($"'{program}' is not installed: apt-get install {package} (.ci/run does this).");
        }

        var start = new ProcessStartInfo(path)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? "/",
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        var daemon = new MonitoringDaemon(Process.Start(start) ?? throw new InvalidOperationException($"{program} did not start"));
        await daemon.WaitUntilReadyAsync(program, ready);
        return daemon;
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            NativeMethods.Signal(_process.Id, SigTerm);
            using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            try
            {
                await _process.WaitForExitAsync(grace.Token);
            }
            catch (OperationCanceledException)
            {
                _process.Kill();
            }
        }

        _process.Dispose();
    }

    private async Task WaitUntilReadyAsync(string program, Uri ready)
    {
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(5) };
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(30))
        {
            if (_process.HasExited)
            {
                throw new InvalidOperationException($"{program} exited with {_process.ExitCode}:\n{Output}");
            }

            try
            {
                using var answer = await http.GetAsync(ready);
                if (answer.IsSuccessStatusCode)
                {
                    return;
                }
            }
            catch (Exception e) when (e is HttpRequestException or TaskCanceledException)
            {
                // Not listening yet.
            }

            await Task.Delay(100);
        }

        throw new TimeoutException($"{program} was not ready within 30 s:\n{Output}");
    }

    private void Append(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_output)
        {
            _output.AppendLine(line);
        }
    }
}
