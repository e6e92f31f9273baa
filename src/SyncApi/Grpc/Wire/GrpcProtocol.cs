namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>Header names and fixed values of the gRPC HTTP/2 mapping (grpc/grpc doc/PROTOCOL-HTTP2.md).</summary>
public static class GrpcProtocol
{
    public const string ContentType = "application/grpc";
    public const string ProtoContentType = "application/grpc+proto";
    public const string StatusHeader = "grpc-status";
    public const string MessageHeader = "grpc-message";
    public const string TimeoutHeader = "grpc-timeout";
    public const string EncodingHeader = "grpc-encoding";
    public const string AcceptEncodingHeader = "grpc-accept-encoding";
    public const string IdentityEncoding = "identity";

    /// <summary>Length-prefixed message header: a compressed flag byte and a big-endian uint32 length.</summary>
    public const int FrameHeaderSize = 5;

    /// <summary>The default limit on one received message, as in the reference implementations.</summary>
    public const int DefaultMaxReceiveMessageSize = 4 * 1024 * 1024;

    /// <summary>True for <c>application/grpc</c> and its <c>+suffix</c> forms, as the spec requires of a gRPC request.</summary>
    public static bool IsGrpcContentType(string? contentType) =>
        contentType is not null
        && contentType.StartsWith(ContentType, StringComparison.OrdinalIgnoreCase)
        && (contentType.Length == ContentType.Length || contentType[ContentType.Length] is '+' or ';');

    /// <summary>True when the message codec is protobuf: <c>application/grpc</c> or <c>application/grpc+proto</c>.</summary>
    public static bool IsProtobufContentType(string contentType)
    {
        var mediaType = contentType.Split(';', 2)[0].Trim();
        return mediaType.Equals(ContentType, StringComparison.OrdinalIgnoreCase)
            || mediaType.Equals(ProtoContentType, StringComparison.OrdinalIgnoreCase);
    }
}
