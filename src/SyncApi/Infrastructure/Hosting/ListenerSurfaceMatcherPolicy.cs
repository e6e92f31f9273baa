using Microsoft.AspNetCore.Routing.Matching;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>Endpoint metadata: the endpoint belongs to the gRPC listener's surface.</summary>
internal sealed class GrpcSurfaceMetadata
{
    public static readonly GrpcSurfaceMetadata Instance = new();
}

/// <summary>
/// Each listener serves exactly its own surface: connections accepted on the gRPC port reach only
/// endpoints marked <see cref="GrpcSurfaceMetadata"/> (the gRPC services, their unimplemented-method
/// answers and the gRPC catch-all), and every other connection reaches only the REST surface (device APIs, health, <c>/metrics</c>,
/// OpenAPI). The connection's local port is checked rather than the Host header, which proxies
/// rewrite and clients choose. The table is split before the HTTP method is looked at (its order is
/// below the method policy's), so a path of the other surface is simply not found on a listener.
/// </summary>
internal sealed class ListenerSurfaceMatcherPolicy(IOptions<EndpointsOptions> endpoints) : MatcherPolicy, INodeBuilderPolicy
{
    private readonly int _grpcPort = ListenAddress.TryParse(endpoints.Value.Grpc, out var address, out _) ? address.Port : -1;

    /// <summary>Before <see cref="HttpMethodMatcherPolicy"/> (-1000).</summary>
    public override int Order => -2000;

    public bool AppliesToEndpoints(IReadOnlyList<Endpoint> endpoints) => endpoints.Count > 0;

    public IReadOnlyList<PolicyNodeEdge> GetEdges(IReadOnlyList<Endpoint> endpoints) =>
    [
        new PolicyNodeEdge(true, endpoints.Where(IsGrpc).ToList()),
        new PolicyNodeEdge(false, endpoints.Where(e => !IsGrpc(e)).ToList()),
    ];

    public PolicyJumpTable BuildJumpTable(int exitDestination, IReadOnlyList<PolicyJumpTableEdge> edges)
    {
        var grpc = exitDestination;
        var rest = exitDestination;
        foreach (var edge in edges)
        {
            if ((bool)edge.State)
            {
                grpc = edge.Destination;
            }
            else
            {
                rest = edge.Destination;
            }
        }

        return new SurfaceJumpTable(_grpcPort, grpc, rest);
    }

    internal static bool IsGrpc(Endpoint endpoint) => endpoint.Metadata.GetMetadata<GrpcSurfaceMetadata>() is not null;

    private sealed class SurfaceJumpTable(int grpcPort, int grpc, int rest) : PolicyJumpTable
    {
        public override int GetDestination(HttpContext httpContext) =>
            httpContext.Connection.LocalPort == grpcPort ? grpc : rest;
    }
}
