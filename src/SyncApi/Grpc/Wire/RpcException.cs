namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>
/// A call that ended with a non-OK status. Thrown by handlers to choose the status a client sees,
/// and by the client when a call fails. <see cref="Trailers"/> is extra trailing metadata.
/// </summary>
public sealed class RpcException : Exception
{
    public RpcException(StatusCode status, string detail, IReadOnlyList<KeyValuePair<string, string>>? trailers = null)
        : base($"Status({status}): {detail}")
    {
        Status = status;
        Detail = detail;
        Trailers = trailers ?? [];
    }

    public StatusCode Status { get; }

    /// <summary>The status message as the client sees it (<c>grpc-message</c>, decoded).</summary>
    public string Detail { get; }

    public IReadOnlyList<KeyValuePair<string, string>> Trailers { get; }
}
