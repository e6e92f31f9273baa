using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// The one place where the application's rejections become gRPC statuses. Deadline (DEADLINE_EXCEEDED)
/// and client cancellation (CANCELLED) are decided by the wire binding, which owns those tokens; anything
/// not listed here leaves as INTERNAL with a generic message and is logged.
/// </summary>
internal static class SyncGrpcErrors
{
    public static RpcException? ToStatus(Exception exception) => exception switch
    {
        InvalidRequestException invalid => new RpcException(StatusCode.InvalidArgument, $"{invalid.Field}: {invalid.Message}"),
        ResourceNotFoundException notFound => new RpcException(StatusCode.NotFound, notFound.Message),
        AccessDeniedException denied => new RpcException(StatusCode.PermissionDenied, denied.Message),
        // Not RESOURCE_EXHAUSTED: clients retry that one, and the same batch would fail again.
        BatchTooLargeException tooLarge => new RpcException(StatusCode.InvalidArgument, $"{BatchTooLargeException.Field}: {tooLarge.Message}"),
        SyncTokenExpiredException expired => new RpcException(StatusCode.FailedPrecondition, $"{SyncTokens.Field}: {expired.Message}"),
        StorageUnavailableException unavailable => new RpcException(
            StatusCode.Unavailable, unavailable.Message, [RetryAdvice.GrpcTrailer(unavailable.RetryAfter)]),
        _ => null,
    };
}
