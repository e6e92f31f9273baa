using Grpc.AspNetCore.Server;
using Grpc.Core;
using Kobo.Sync.SyncApi.Infrastructure.Auth;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>What admission needs to know of a request once it is routed and authenticated.</summary>
internal static class AdmissionRequests
{
    /// <summary>
    /// The authenticated device (token <c>did</c> of user <c>sub</c>, or a Kobo link); null before authentication or for anonymous calls.
    /// </summary>
    public static string? DeviceOf(HttpContext context) =>
        context.User.Identity is DeviceIdentity { IsAuthenticated: true } device ? device.DeviceKey : null;

    /// <summary>The authenticated caller's user, as text (the key of the user's shares); null as <see cref="DeviceOf"/>.</summary>
    public static string? UserOf(HttpContext context) =>
        context.User.Identity is DeviceIdentity { IsAuthenticated: true } device ? device.Caller.User.ToString() : null;

    /// <summary>A gRPC method whose answer is a stream of messages written as they come (never buffered whole).</summary>
    public static bool StreamsAnswer(HttpContext context) =>
        GrpcMethodType(context) is MethodType.ServerStreaming or MethodType.DuplexStreaming;

    /// <summary>A gRPC method whose request is a stream of messages the caller sends as it goes (never awaited whole).</summary>
    public static bool StreamsRequest(HttpContext context) =>
        GrpcMethodType(context) is MethodType.ClientStreaming or MethodType.DuplexStreaming;

    private static MethodType? GrpcMethodType(HttpContext context) =>
        context.GetEndpoint()?.Metadata.GetMetadata<GrpcMethodMetadata>()?.Method.Type;
}
