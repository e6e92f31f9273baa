using Microsoft.AspNetCore.Routing.Matching;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>Endpoint metadata: the endpoint answers only connections accepted on this local port.</summary>
public sealed record LocalPortMetadata(int Port);

/// <summary>
/// Keeps endpoints carrying <see cref="LocalPortMetadata"/> to their listener. The connection's local
/// port is checked rather than the Host header, which proxies rewrite and clients choose. It splits
/// the routing table by port before the HTTP method is looked at (its order is below the method
/// policy's), so each listener sees only its own endpoints: a POST to a REST read gets 405 from the
/// REST table instead of being swallowed by the gRPC listener's catch-all and then dropped as 404.
/// </summary>
internal sealed class LocalPortMatcherPolicy : MatcherPolicy, INodeBuilderPolicy
{
    private const int AnyOtherPort = -1;

    /// <summary>Before <see cref="HttpMethodMatcherPolicy"/> (-1000).</summary>
    public override int Order => -2000;

    public bool AppliesToEndpoints(IReadOnlyList<Endpoint> endpoints) =>
        endpoints.Any(e => e.Metadata.GetMetadata<LocalPortMetadata>() is not null);

    public IReadOnlyList<PolicyNodeEdge> GetEdges(IReadOnlyList<Endpoint> endpoints)
    {
        var ports = endpoints
            .Select(e => e.Metadata.GetMetadata<LocalPortMetadata>()?.Port)
            .OfType<int>()
            .Distinct()
            .Order()
            .ToList();

        // An endpoint without the metadata answers on every port, so it joins every edge.
        var edges = ports
            .Select(port => new PolicyNodeEdge(port, endpoints.Where(e => PortOf(e) is null || PortOf(e) == port).ToList()))
            .ToList();
        edges.Add(new PolicyNodeEdge(AnyOtherPort, endpoints.Where(e => PortOf(e) is null).ToList()));
        return edges;
    }

    public PolicyJumpTable BuildJumpTable(int exitDestination, IReadOnlyList<PolicyJumpTableEdge> edges)
    {
        var byPort = new Dictionary<int, int>();
        var otherPorts = exitDestination;
        foreach (var edge in edges)
        {
            var port = (int)edge.State;
            if (port == AnyOtherPort)
            {
                otherPorts = edge.Destination;
            }
            else
            {
                byPort[port] = edge.Destination;
            }
        }

        return new PortJumpTable(byPort, otherPorts);
    }

    private static int? PortOf(Endpoint endpoint) => endpoint.Metadata.GetMetadata<LocalPortMetadata>()?.Port;

    private sealed class PortJumpTable(Dictionary<int, int> byPort, int otherPorts) : PolicyJumpTable
    {
        public override int GetDestination(HttpContext httpContext) =>
            byPort.TryGetValue(httpContext.Connection.LocalPort, out var destination) ? destination : otherPorts;
    }
}
