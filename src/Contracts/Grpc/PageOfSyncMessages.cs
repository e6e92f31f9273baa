namespace Kobo.Sync.Contracts.Grpc.V1;

// Not on the wire: which page of its sync a pull's answer is, kept beside the message for the pull's metric
// (the web host's GrpcResultMetricsInterceptor, which alone sees it), as REST reads it from its answer. The
// contract has no such field.

public sealed partial class PullChangesResponse
{
    /// <summary>Which page of its sync this one is (1 for the first pull after a sync token); never serialised.</summary>
    internal int PageOfSync { get; init; } = 1;
}

public sealed partial class WatchChangesResponse
{
    /// <summary>Which page of its sync this one is; never serialised.</summary>
    internal int PageOfSync { get; init; } = 1;
}
