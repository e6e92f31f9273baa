using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>Binds Kestrel to the REST (HTTP/1.1) and gRPC (HTTP/2 cleartext) listeners from <see cref="EndpointsOptions"/>.</summary>
internal sealed class KestrelEndpointsSetup(IOptions<EndpointsOptions> endpoints) : IConfigureOptions<KestrelServerOptions>
{
    public void Configure(KestrelServerOptions options)
    {
        options.AddServerHeader = false;
        Listen(options, endpoints.Value.Rest, HttpProtocols.Http1);
        Listen(options, endpoints.Value.Grpc, HttpProtocols.Http2);
    }

    private static void Listen(KestrelServerOptions kestrel, string url, HttpProtocols protocols)
    {
        // The options validator has already rejected anything that does not parse.
        if (!ListenAddress.TryParse(url, out var address, out var error))
        {
            throw new InvalidOperationException(error);
        }

        if (address.IsLocalhost)
        {
            kestrel.ListenLocalhost(address.Port, listen => listen.Protocols = protocols);
        }
        else
        {
            kestrel.Listen(address.IpAddress, address.Port, listen => listen.Protocols = protocols);
        }
    }
}
