namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>
/// Where the service listens. REST speaks HTTP/1.1 and gRPC speaks HTTP/2 without TLS, each on
/// its own port, so that load balancers and devices reach each protocol without negotiation.
/// </summary>
public sealed class EndpointsOptions
{
    public const string SectionName = "Endpoints";

    /// <summary>REST listener, e.g. <c>http://127.0.0.1:5080</c>; use <c>http://0.0.0.0:5080</c> in a container.</summary>
    public string Rest { get; set; } = "http://127.0.0.1:5080";

    /// <summary>gRPC listener (HTTP/2 cleartext), e.g. <c>http://127.0.0.1:5081</c>.</summary>
    public string Grpc { get; set; } = "http://127.0.0.1:5081";
}
