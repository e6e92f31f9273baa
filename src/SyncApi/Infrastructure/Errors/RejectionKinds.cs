using System.Collections.Frozen;
using Grpc.Core;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Admission;

namespace Kobo.Sync.SyncApi.Infrastructure.Errors;

/// <summary>
/// How one kind of rejection leaves on both protocols: REST's status and problem title, gRPC's status code, and
/// what both name beside the exception's message (which is the problem's <c>detail</c> and the gRPC status
/// message): the field at fault (REST's <c>errors</c>, gRPC's <c>field: </c> prefix), the setting of the bound
/// it hit (REST's <c>setting</c>, gRPC's <c>setting: </c> prefix) and when to retry (REST's <c>Retry-After</c>
/// and <c>retryAfterMs</c>, gRPC's pushback trailer).
/// </summary>
internal sealed record RejectionKind(Type ExceptionType, int HttpStatus, string Title, StatusCode GrpcStatus)
{
    public Func<Exception, string>? Field { get; init; }

    public Func<Exception, string>? Setting { get; init; }

    public Func<Exception, TimeSpan>? RetryAfter { get; init; }

    /// <summary>What gRPC's status message names before the exception's message, if anything.</summary>
    public string GrpcMessage(Exception exception) =>
        (Field ?? Setting)?.Invoke(exception) is { } named ? $"{named}: {exception.Message}" : exception.Message;
}

/// <summary>
/// The one table of the application's rejections: <see cref="RequestRejectedProblemHandler"/> renders a row as
/// problem+json, <see cref="Grpc.GrpcErrorInterceptor"/> as a gRPC status, so a kind is known to both or to
/// neither. Only what one protocol alone can meet stays with it: REST's unreadable bodies and a long poll
/// whose token lapsed, gRPC's refused watch.
/// </summary>
internal static class RejectionKinds
{
    public static readonly IReadOnlyList<RejectionKind> All =
    [
        Kind<InvalidRequestException>(StatusCodes.Status400BadRequest, "Invalid request", StatusCode.InvalidArgument) with
        {
            Field = e => ((InvalidRequestException)e).Field,
        },
        Kind<ResourceNotFoundException>(StatusCodes.Status404NotFound, "Not found", StatusCode.NotFound),
        Kind<AccessDeniedException>(StatusCodes.Status403Forbidden, "Forbidden", StatusCode.PermissionDenied),
        // Not RESOURCE_EXHAUSTED: clients retry that one, and the same batch would fail again.
        Kind<BatchTooLargeException>(StatusCodes.Status413PayloadTooLarge, "Batch too large", StatusCode.InvalidArgument) with
        {
            Field = _ => BatchTooLargeException.Field,
        },
        Kind<TooManyRevokedDevicesException>(StatusCodes.Status409Conflict, "Too many revoked devices", StatusCode.FailedPrecondition),
        Kind<HighlightQuotaExceededException>(StatusCodes.Status409Conflict, "Highlight quota exceeded", StatusCode.FailedPrecondition),
        Kind<TombstoneQuotaExceededException>(StatusCodes.Status409Conflict, "Tombstone quota exceeded", StatusCode.FailedPrecondition) with
        {
            Setting = _ => TombstoneQuotaExceededException.Setting,
        },
        Kind<CollectionBoundExceededException>(
            StatusCodes.Status409Conflict, "Collection bound exceeded", StatusCode.FailedPrecondition) with
        {
            Setting = e => ((CollectionBoundExceededException)e).Setting,
        },
        Kind<SyncTokenExpiredException>(StatusCodes.Status410Gone, "Sync token expired", StatusCode.FailedPrecondition) with
        {
            Field = _ => SyncTokens.Field,
        },
        Kind<StorageUnavailableException>(StatusCodes.Status503ServiceUnavailable, "Service unavailable", StatusCode.Unavailable) with
        {
            RetryAfter = e => ((StorageUnavailableException)e).RetryAfter,
        },
        Kind<InstanceOverloadedException>(StatusCodes.Status503ServiceUnavailable, "Service unavailable", StatusCode.Unavailable) with
        {
            RetryAfter = e => ((InstanceOverloadedException)e).RetryAfter,
        },
    ];

    // Every kind is a sealed class: its exact type finds its row.
    private static readonly FrozenDictionary<Type, RejectionKind> ByType = All.ToFrozenDictionary(k => k.ExceptionType);

    /// <summary>The row of <paramref name="exception"/>'s kind, or null for one the table does not hold.</summary>
    public static RejectionKind? Of(Exception exception) => ByType.GetValueOrDefault(exception.GetType());

    private static RejectionKind Kind<TException>(int httpStatus, string title, StatusCode grpcStatus)
        where TException : Exception => new(typeof(TException), httpStatus, title, grpcStatus);
}
