using System.Net;
using System.Net.Sockets;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>Ports for the servers a test starts.</summary>
public static class LoopbackPorts
{
    /// <summary>A loopback port nobody listens on right now (another process could take it, rarely).</summary>
    public static int Free()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
