using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace Kobo.Sync.DeviceSimulator.Tests.Support;

/// <summary>
/// A small HTTP server on a free loopback port that answers <c>GET /v1/users/{n}</c> however a test
/// says, and notes when each request arrived.
/// </summary>
public sealed class StubDeviceServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly Stopwatch _clock = Stopwatch.StartNew();

    public StubDeviceServer(Func<HttpContext, int, Task> respond)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        Address = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        builder.WebHost.UseUrls(Address.ToString());
        _app = builder.Build();
        _app.MapGet("/v1/users/{n}", async context =>
        {
            Arrivals.Enqueue(_clock.Elapsed);
            await respond(context, Arrivals.Count);
        });
    }

    public Uri Address { get; }

    /// <summary>When each request arrived, from the server's start.</summary>
    public ConcurrentQueue<TimeSpan> Arrivals { get; } = new();

    public TimeSpan Elapsed => _clock.Elapsed;

    public static async Task<StubDeviceServer> StartAsync(Func<HttpContext, int, Task> respond)
    {
        var server = new StubDeviceServer(respond);
        await server._app.StartAsync();
        return server;
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
