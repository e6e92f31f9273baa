using System.Collections.Concurrent;
using System.Net;
using System.Text;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// An OTLP/HTTP endpoint on a free loopback port that answers 200 and keeps every request body by
/// path (<c>/v1/traces</c>, <c>/v1/metrics</c>, <c>/v1/logs</c>), with the standard
/// <c>OTEL_*</c> variables pointing the process at it until disposed.
/// </summary>
public sealed class OtlpReceiver : IAsyncDisposable
{
    private readonly HttpListener _listener = new();
    private readonly ConcurrentQueue<(string Path, byte[] Body)> _received = new();
    private readonly Dictionary<string, string> _variables;
    private readonly Task _receiving;

    public OtlpReceiver()
    {
        var port = LoopbackPorts.Free();
        _listener.Prefixes.Add($"http://127.0.0.1:{port}/");
        _listener.Start();
        _receiving = Task.Run(ReceiveAsync);
        _variables = new Dictionary<string, string>
        {
            [TelemetryExtensions.OtlpEndpointKey] = $"http://127.0.0.1:{port}",
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_BSP_SCHEDULE_DELAY"] = "100",
            ["OTEL_BLRP_SCHEDULE_DELAY"] = "100",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "200",
        };
        foreach (var (name, value) in _variables)
        {
            Environment.SetEnvironmentVariable(name, value);
        }
    }

    public IEnumerable<string> Paths => _received.Select(r => r.Path);

    /// <summary>The bodies received on <paramref name="path"/> (protobuf: strings appear as UTF-8).</summary>
    public IEnumerable<byte[]> Bodies(string path) => _received.Where(r => r.Path == path).Select(r => r.Body);

    /// <summary>Waits until every path in <paramref name="paths"/> has received something.</summary>
    public async Task WaitForAsync(params string[] paths)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < deadline && !paths.All(Paths.Contains))
        {
            await Task.Delay(100);
        }
    }

    /// <summary>Waits (at most 10 s) until the bodies received on <paramref name="path"/> contain <paramref name="text"/> as UTF-8.</summary>
    public async Task WaitForTextAsync(string path, string text)
    {
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < deadline && !string.Concat(Bodies(path).Select(Encoding.UTF8.GetString)).Contains(text, StringComparison.Ordinal))
        {
            await Task.Delay(100);
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var name in _variables.Keys)
        {
            Environment.SetEnvironmentVariable(name, null);
        }

        _listener.Stop();
        await _receiving;
        _listener.Close();
    }

    private async Task ReceiveAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync();
            }
            catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
            {
                return;
            }

            using var body = new MemoryStream();
            await context.Request.InputStream.CopyToAsync(body);
            _received.Enqueue((context.Request.Url!.AbsolutePath, body.ToArray()));
            context.Response.StatusCode = 200;
            context.Response.Close();
        }
    }
}
