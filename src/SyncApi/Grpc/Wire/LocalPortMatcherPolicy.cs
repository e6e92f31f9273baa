using Microsoft.AspNetCore.Routing.Matching;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>Endpoint metadata: the endpoint answers only connections accepted on this local port.</summary>
public sealed record LocalPortMetadata(int Port);

/// <summary>
/// Keeps endpoints carrying <see cref="LocalPortMetadata"/> to their listener. The connection's local
/// port is checked rather than the Host header, which proxies rewrite and clients choose.
/// </summary>
internal sealed class LocalPortMatcherPolicy : MatcherPolicy, IEndpointSelectorPolicy
{
    public override int Order => 0;

    public bool AppliesToEndpoints(IReadOnlyList<Endpoint> endpoints) =>
        endpoints.Any(e => e.Metadata.GetMetadata<LocalPortMetadata>() is not null);

    public Task ApplyAsync(HttpContext httpContext, CandidateSet candidates)
    {
        var port = httpContext.Connection.LocalPort;
        for (var i = 0; i < candidates.Count; i++)
        {
            if (candidates[i].Endpoint.Metadata.GetMetadata<LocalPortMetadata>() is { } required && required.Port != port)
            {
                candidates.SetValidity(i, false);
            }
        }

        return Task.CompletedTask;
    }
}
