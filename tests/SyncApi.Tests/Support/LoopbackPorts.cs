using System.Net;
using System.Net.Sockets;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// Ports for the servers a test starts. They come from below the kernel's ephemeral range
/// (net.ipv4.ip_local_port_range), so the outgoing connections a test run makes by the thousand can
/// never be handed one between the check here and the server's bind; a port taken from the ephemeral
/// range can, and then the server fails with "address already in use". A port is handed out once per
/// process, and only when nobody listens on it.
/// </summary>
public static class LoopbackPorts
{
    private const int Lowest = 10_000;
    private static readonly HashSet<int> HandedOut = [];
    private static readonly int Highest = EphemeralStart() - 1;

    /// <summary>A loopback port nobody listens on right now.</summary>
    public static int Free() => FreeRun(1);

    /// <summary>The first of <paramref name="count"/> consecutive loopback ports nobody listens on right now.</summary>
    public static int FreeRun(int count)
    {
        lock (HandedOut)
        {
            for (var attempt = 0; attempt < 500; attempt++)
            {
                var first = Random.Shared.Next(Lowest, Highest - count + 2);
                var run = Enumerable.Range(first, count).ToArray();
                if (run.Any(HandedOut.Contains) || !run.All(IsFree))
                {
                    continue;
                }

                HandedOut.UnionWith(run);
                return first;
            }
        }

        throw new InvalidOperationException($"No {count} consecutive free loopback ports between {Lowest} and {Highest}.");
    }

    private static bool IsFree(int port)
    {
        try
        {
            using var listener = new TcpListener(IPAddress.Loopback, port);
            listener.Start();
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    /// <summary>The first port of the kernel's ephemeral range (32768 where it cannot be read: Linux's default).</summary>
    private static int EphemeralStart()
    {
        const string RangeFile = "/proc/sys/net/ipv4/ip_local_port_range";
        var fields = File.Exists(RangeFile) ? File.ReadAllText(RangeFile).Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries) : [];
        return fields.Length > 0 && int.TryParse(fields[0], out var start) && start > Lowest + 1_000 ? start : 32_768;
    }
}
