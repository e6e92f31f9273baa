namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>Settings of the gRPC binding shared by every mapped method.</summary>
public sealed class GrpcWireOptions
{
    /// <summary>Larger request messages are refused with RESOURCE_EXHAUSTED.</summary>
    public int MaxReceiveMessageSize { get; set; } = GrpcProtocol.DefaultMaxReceiveMessageSize;

    /// <summary>
    /// The application's one place that turns its own exceptions into statuses; return null for an
    /// exception it does not know, which then leaves as INTERNAL with a generic message (and is logged).
    /// </summary>
    public Func<Exception, RpcException?> MapException { get; set; } = static _ => null;
}
