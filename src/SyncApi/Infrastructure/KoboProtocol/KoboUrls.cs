using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

/// <summary>
/// The absolute URLs the Kobo front hands out (a link's <c>apiEndpoint</c>, the initialization
/// resources), from <c>Kobo:PublicBaseUrl</c> or, when it is not set, from what the caller cannot
/// choose: never from the request's Host header, which any client may forge to steer a device's URLs
/// to a host of its choosing.
/// </summary>
public static class KoboUrls
{
    /// <summary>
    /// The service's public base without a trailing slash. Without <c>Kobo:PublicBaseUrl</c> it is the
    /// address and port the caller's connection reached (the listener's own, as bound: on a wildcard
    /// listener, the interface the caller came in through), so <c>dotnet run</c> works out of the box
    /// and a device on the same network is told an address it reached; without a connection of its
    /// own (an in-process host) it is the REST listener's configured address (<c>Endpoints:Rest</c>).
    /// Behind a proxy neither is the public name: set <c>Kobo:PublicBaseUrl</c> there.
    /// </summary>
    public static string Base(KoboOptions options, HttpContext context)
    {
        if (options.PublicBase is { } configured)
        {
            return configured.GetLeftPart(UriPartial.Path).TrimEnd('/');
        }

        var request = context.Request;
        var connection = context.Connection;
        if (connection.LocalIpAddress is { } local && connection.LocalPort > 0)
        {
            return string.Concat(request.Scheme, "://", Authority(local, connection.LocalPort), request.PathBase.ToUriComponent());
        }

        var rest = context.RequestServices.GetService<IOptions<EndpointsOptions>>()?.Value.Rest ?? new EndpointsOptions().Rest;
        return rest.TrimEnd('/') + request.PathBase.ToUriComponent();
    }

    /// <summary>The e-reader's own root, <c>{base}/kobo/{secret}</c>, for the link secret of the current request.</summary>
    public static string EReaderRoot(KoboOptions options, HttpContext context, string secret) =>
        Base(options, context) + "/kobo/" + secret;

    private static string Authority(IPAddress address, int port)
    {
        if (address.IsIPv4MappedToIPv6)
        {
            address = address.MapToIPv4();
        }

        var host = address.AddressFamily == AddressFamily.InterNetworkV6
            ? "[" + new IPAddress(address.GetAddressBytes()) + "]" // without a scope id: a URL cannot carry one plainly
            : address.ToString();
        return host + ":" + port.ToString(CultureInfo.InvariantCulture);
    }
}
