using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Alerts;

/// <summary>
/// The receiver Alertmanager's webhooks post to, on a free loopback port: every notification kept with
/// the time it arrived, its path (the receiver: <c>/page</c>, <c>/ticket</c>) and each alert's name and status.
/// </summary>
public sealed class AlertWebhook : IAsyncDisposable
{
    private readonly HttpListener _listener = new();
    private readonly ConcurrentQueue<Notification> _received = new();
    private readonly Task _receiving;
    private readonly Stopwatch _clock = Stopwatch.StartNew();

    public AlertWebhook()
    {
        Address = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}/");
        _listener.Prefixes.Add(Address.ToString());
        _listener.Start();
        _receiving = Task.Run(ReceiveAsync);
    }

    public Uri Address { get; }

    /// <summary>Time on the receiver's clock, to compare with <see cref="Notification.At"/>.</summary>
    public TimeSpan Now => _clock.Elapsed;

    public IReadOnlyList<Notification> Received => [.. _received];

    /// <summary>The first notification on <paramref name="receiver"/> of <paramref name="alert"/> in <paramref name="status"/> after <paramref name="since"/>; null if none came within <paramref name="within"/>.</summary>
    public async Task<Notification?> WaitForAsync(string receiver, string alert, string status, TimeSpan since, TimeSpan within)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < within)
        {
            var found = _received.FirstOrDefault(n => n.At >= since && n.Receiver == receiver && n.Alerts.Any(a => a.Name == alert && a.Status == status));
            if (found is not null)
            {
                return found;
            }

            await Task.Delay(200);
        }

        return null;
    }

    public async ValueTask DisposeAsync()
    {
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

            var at = _clock.Elapsed;
            using var body = await JsonDocument.ParseAsync(context.Request.InputStream);
            var alerts = body.RootElement.GetProperty("alerts").EnumerateArray()
                .Select(a => new AlertState(a.GetProperty("labels").GetProperty("alertname").GetString()!, a.GetProperty("status").GetString()!))
                .ToList();
            _received.Enqueue(new Notification(at, context.Request.Url!.AbsolutePath.Trim('/'), alerts));
            context.Response.StatusCode = 200;
            context.Response.Close();
        }
    }

    public sealed record AlertState(string Name, string Status);

    public sealed record Notification(TimeSpan At, string Receiver, IReadOnlyList<AlertState> Alerts)
    {
        public override string ToString() => $"{At.TotalSeconds:F1} s /{Receiver}: {string.Join(", ", Alerts.Select(a => $"{a.Name} {a.Status}"))}";
    }
}
