using System.Net;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>
/// Section <c>Proxies</c>: the balancers in front of the service whose <c>X-Forwarded-For</c> it believes.
/// A request whose connection comes from one of <see cref="TrustedNetworks"/> is taken to be from the
/// last address that balancer appended; from anywhere else the header is ignored, so a client cannot
/// choose its own address. The client address keys the per-address allowances (refused Kobo secrets).
/// </summary>
public sealed class ProxiesOptions
{
    public const string SectionName = "Proxies";

    /// <summary>
    /// Addresses or CIDR networks of the balancers (<c>10.0.0.0/24</c>, <c>127.0.0.1</c>). Empty (the
    /// default): no forwarded header is believed, each connection's own address is the client's.
    /// </summary>
    public string[] TrustedNetworks { get; set; } = [];

    /// <summary>The networks as parsed; only valid after validation (<see cref="ProxiesOptionsValidator"/>).</summary>
    internal IEnumerable<IPNetwork> Networks() => TrustedNetworks.Select(
        n => TryParse(n, out var network) ? network : throw new FormatException(n));

    /// <summary>A network in CIDR form, or one address (a /32 or /128).</summary>
    internal static bool TryParse(string text, out IPNetwork network)
    {
        text = text.Trim();
        if (IPNetwork.TryParse(text, out network))
        {
            return true;
        }

        if (IPAddress.TryParse(text, out var address))
        {
            if (address.IsIPv4MappedToIPv6)
            {
                address = address.MapToIPv4();
            }

            network = new IPNetwork(address, address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork ? 32 : 128);
            return true;
        }

        return false;
    }
}
