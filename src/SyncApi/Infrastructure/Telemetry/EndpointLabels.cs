using System.Collections.Concurrent;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// The <c>endpoint</c> tag of an ASP.NET Core endpoint, worked out once per endpoint: the REST
/// endpoint's name (<c>GetUser</c>), the gRPC method of the sync service (<c>GetUser</c> too, so both
/// protocols line up on a dashboard), <c>service/method</c> for other gRPC services, the route
/// template otherwise, and <see cref="Unmatched"/> for anything no route took. Paths and query
/// strings are never used: they carry user numbers and cursors.
/// </summary>
public sealed class EndpointLabels
{
    public const string Unmatched = "unmatched";
    private const string SyncServicePrefix = "/kobo.sync.";

    private readonly ConcurrentDictionary<Endpoint, Label> _labels = new();

    /// <summary>
    /// The label of <paramref name="endpoint"/>; <see cref="Label.Excluded"/> for endpoints left out of request telemetry.
    /// </summary>
    public Label For(Endpoint? endpoint) =>
        endpoint is null ? Label.UnmatchedEndpoint : _labels.GetOrAdd(endpoint, static e => Compute(e));

    private static Label Compute(Endpoint endpoint)
    {
        if (endpoint.Metadata.GetMetadata<ExcludeFromRequestTelemetry>() is not null)
        {
            return Label.Excluded;
        }

        var name = endpoint.Metadata.GetMetadata<IEndpointNameMetadata>()?.EndpointName;
        var route = (endpoint as RouteEndpoint)?.RoutePattern.RawText;
        var text = name ?? GrpcMethod(route) ?? route;
        // A template left as the label is a catch-all (the gRPC listener's unknown paths, Grpc.AspNetCore's
        // unimplemented services and methods): nothing a dashboard should split by.
        return text is null || text.Contains('{', StringComparison.Ordinal) ? Label.UnmatchedEndpoint : new Label(text, route);
    }

    /// <summary><c>/pkg.Service/Method</c>: the method alone for the sync service, <c>pkg.Service/Method</c> for others.</summary>
    private static string? GrpcMethod(string? route)
    {
        if (route is null || route.Length < 2 || route.Contains('{', StringComparison.Ordinal))
        {
            return null;
        }

        var slash = route.IndexOf('/', 1);
        if (slash < 0 || !route.AsSpan(1, slash - 1).Contains('.'))
        {
            return null;
        }

        return route.StartsWith(SyncServicePrefix, StringComparison.Ordinal) ? route[(slash + 1)..] : route[1..];
    }

    /// <summary>An endpoint's tag value and its route template (for span names); excluded endpoints have neither.</summary>
    public sealed record Label(string? Endpoint, string? Route)
    {
        public static readonly Label Excluded = new(null, null);
        public static readonly Label UnmatchedEndpoint = new(Unmatched, null);

        public bool IsExcluded => Endpoint is null;
    }
}
