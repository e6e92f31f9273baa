using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Kobo.Sync.DevServer.Embedded;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// A real Prometheus (Debian's package) on a free loopback port, scraping one target's
/// <c>/metrics</c> every second into a throw-away data directory, queried through its HTTP API.
/// Stopped with SIGTERM (then killed if it lingers) and its directory removed on dispose.
/// </summary>
public sealed class PrometheusServer : IAsyncDisposable
{
    public const string Job = "kobo-sync";
    private const int SigTerm = 15;

    private readonly Process _process;
    private readonly string _directory;
    private readonly StringBuilder _output = new();

    private PrometheusServer(Process process, string directory, Uri address)
    {
        _process = process;
        _directory = directory;
        Address = address;
        Http = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(10) };
        process.OutputDataReceived += (_, e) => Append(e.Data);
        process.ErrorDataReceived += (_, e) => Append(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    public Uri Address { get; }

    public HttpClient Http { get; }

    /// <summary>What Prometheus printed: put into assertion messages.</summary>
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

    public static Task<PrometheusServer> StartAsync(Uri target) =>
        StartAsync($"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: {Job}
                metrics_path: /metrics
                static_configs:
                  - targets: ["{target.Host}:{target.Port}"]
            """);

    /// <summary>
    /// A Prometheus on the configuration <paramref name="configuration"/>, with <paramref name="files"/>
    /// (name, text: rule files the configuration names) written beside it.
    /// </summary>
    public static async Task<PrometheusServer> StartAsync(string configuration, IReadOnlyDictionary<string, string>? files = null)
    {
        var directory = Directory.CreateTempSubdirectory("kobo-prometheus-").FullName;
        var config = Path.Combine(directory, "prometheus.yml");
        await File.WriteAllTextAsync(config, configuration);
        foreach (var (name, text) in files ?? new Dictionary<string, string>())
        {
            await File.WriteAllTextAsync(Path.Combine(directory, name), text);
        }

        var port = LoopbackPorts.Free();
        var start = new ProcessStartInfo(PrometheusTools.Prometheus)
        {
            ArgumentList =
            {
                $"--config.file={config}",
                $"--storage.tsdb.path={Path.Combine(directory, "data")}",
                $"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
            },
            WorkingDirectory = directory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        var process = Process.Start(start) ?? throw new InvalidOperationException("prometheus did not start");
        var server = new PrometheusServer(process, directory, new Uri($"http://127.0.0.1:{port}"));
        await server.WaitUntilReadyAsync();
        return server;
    }

    /// <summary>Runs an instant query; the whole JSON answer, whatever its status.</summary>
    public async Task<(bool Success, JsonElement Answer)> QueryAsync(string promql)
    {
        using var response = await Http.GetAsync(new Uri("/api/v1/query?query=" + Uri.EscapeDataString(promql), UriKind.Relative), TestTimeout.Token);
        var answer = await response.Content.ReadFromJsonAsync<JsonElement>(TestTimeout.Token);
        return (answer.GetProperty("status").GetString() == "success", answer);
    }

    /// <summary>The single value of a query answering one series, or null while it answers none.</summary>
    public async Task<double?> ValueAsync(string promql)
    {
        var (success, answer) = await QueryAsync(promql);
        Assert.True(success, $"{promql}: {answer}");
        var result = answer.GetProperty("data").GetProperty("result");
        if (result.GetArrayLength() == 0)
        {
            return null;
        }

        Assert.Equal(1, result.GetArrayLength());
        return double.Parse(result[0].GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture);
    }

    /// <summary>Polls <paramref name="promql"/> until it answers <paramref name="expected"/>; the last answer either way.</summary>
    public async Task<double?> WaitForValueAsync(string promql, double expected, TimeSpan within)
    {
        var deadline = Stopwatch.StartNew();
        double? value;
        do
        {
            value = await ValueAsync(promql);
            if (value == expected)
            {
                return value;
            }

            await Task.Delay(250);
        }
        while (deadline.Elapsed < within);

        return value;
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
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
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // A file still held open: the temporary directory is left for the system to clear.
        }
    }

    private async Task WaitUntilReadyAsync()
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < TimeSpan.FromSeconds(30))
        {
            if (_process.HasExited)
            {
                throw new InvalidOperationException($"prometheus exited with {_process.ExitCode}:\n{Output}");
            }

            try
            {
                using var ready = await Http.GetAsync(new Uri("/-/ready", UriKind.Relative));
                if (ready.IsSuccessStatusCode)
                {
                    return;
                }
            }
            catch (HttpRequestException)
            {
                // Not listening yet.
            }

            await Task.Delay(100);
        }

        throw new TimeoutException($"prometheus was not ready within 30 s:\n{Output}");
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
