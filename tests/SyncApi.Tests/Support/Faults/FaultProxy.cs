using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// A TCP proxy on loopback between the service and PostgreSQL that misbehaves on command: adds
/// latency to every chunk it forwards, drops every open connection, or black-holes traffic (new
/// connections are accepted but never reach the server, open ones stop forwarding in both
/// directions: a network partition as the client sees it). <see cref="Heal"/> ends a black hole and
/// drops the connections it held, as a partition that heals leaves their TCP state broken.
/// </summary>
public sealed class FaultProxy : IAsyncDisposable
{
    private readonly TcpListener _listener;
    private readonly string _targetHost;
    private readonly int _targetPort;
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<int, Link> _links = new();
    private readonly Task _accepting;
    private volatile TaskCompletionSource _open = Opened();
    private int _nextId;
    private int _held;
    private long _latencyTicks;

    private FaultProxy(string targetHost, int targetPort)
    {
        _targetHost = targetHost;
        _targetPort = targetPort;
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    /// <summary>The proxy's own port on 127.0.0.1.</summary>
    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    public int OpenConnections => _links.Count;

    /// <summary>Chunks of traffic being held back by <see cref="Latency"/> now: a request or its answer is on its way.</summary>
    public int HeldChunks => Volatile.Read(ref _held);

    public bool BlackHoled => !_open.Task.IsCompleted;

    /// <summary>A proxy to <paramref name="targetHost"/>:<paramref name="targetPort"/>, forwarding faithfully until told otherwise.</summary>
    public static FaultProxy Start(string targetHost, int targetPort) => new(targetHost, targetPort);

    /// <summary>Delay added before each chunk is forwarded, in both directions.</summary>
    public TimeSpan Latency
    {
        get => TimeSpan.FromTicks(Interlocked.Read(ref _latencyTicks));
        set => Interlocked.Exchange(ref _latencyTicks, value.Ticks);
    }

    /// <summary>Stop forwarding anything, on open and new connections alike, without closing them.</summary>
    public void BlackHole()
    {
        if (_open.Task.IsCompleted)
        {
            _open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }

    /// <summary>Forward again; the connections that were stuck in the black hole are dropped.</summary>
    public void Heal()
    {
        if (_open.Task.IsCompleted)
        {
            return;
        }

        DropAll();
        _open.TrySetResult();
    }

    /// <summary>Close every open connection at once (both sides see a reset or end of stream).</summary>
    public void DropAll()
    {
        foreach (var (id, link) in _links)
        {
            if (_links.TryRemove(id, out _))
            {
                link.Close();
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        DropAll();
        _open.TrySetResult();
        await _accepting.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        _stop.Dispose();
    }

    private static TaskCompletionSource Opened()
    {
        var open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        open.SetResult();
        return open;
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync(_stop.Token);
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }

            var id = Interlocked.Increment(ref _nextId);
            var link = new Link(client);
            _links[id] = link;
            _ = RunAsync(id, link);
        }
    }

    private async Task RunAsync(int id, Link link)
    {
        try
        {
            // A black hole swallows new connections too: accepted, never connected onwards.
            await WhileBlackHoledAsync(link.Closed);
            await link.Server.ConnectAsync(_targetHost, _targetPort, link.Closed);
            await Task.WhenAny(PumpAsync(link.Client, link.Server, link.Closed), PumpAsync(link.Server, link.Client, link.Closed));
        }
        catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException or IOException)
        {
        }
        finally
        {
            _links.TryRemove(id, out _);
            link.Close();
        }
    }

    private async Task PumpAsync(Socket from, Socket to, CancellationToken closed)
    {
        var buffer = new byte[16 * 1024];
        while (true)
        {
            var read = await from.ReceiveAsync(buffer, SocketFlags.None, closed);
            if (read == 0)
            {
                return;
            }

            await WhileBlackHoledAsync(closed);
            var latency = Latency;
            if (latency > TimeSpan.Zero)
            {
                Interlocked.Increment(ref _held);
                try
                {
                    await Task.Delay(latency, closed);
                }
                finally
                {
                    Interlocked.Decrement(ref _held);
                }
            }

            await to.SendAsync(buffer.AsMemory(0, read), SocketFlags.None, closed);
        }
    }

    private Task WhileBlackHoledAsync(CancellationToken closed) => _open.Task.WaitAsync(closed);

    private sealed class Link(Socket client)
    {
        private readonly CancellationTokenSource _closed = new();

        public Socket Client { get; } = client;

        public Socket Server { get; } = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);

        public CancellationToken Closed => _closed.Token;

        public void Close()
        {
            try
            {
                _closed.Cancel();
            }
            catch (ObjectDisposedException)
            {
            }

            Client.Dispose();
            Server.Dispose();
        }
    }
}
