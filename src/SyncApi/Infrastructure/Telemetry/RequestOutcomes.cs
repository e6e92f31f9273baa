namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Values of the <c>outcome</c> tag: one vocabulary for both protocols, so a dashboard compares
/// REST's 404 with gRPC's NOT_FOUND directly. HTTP statuses and gRPC status codes map as
/// grpc/grpc doc/http-grpc-status-mapping.md pairs them.
/// </summary>
public static class RequestOutcomes
{
    public const string Ok = "ok";
    public const string InvalidArgument = "invalid_argument";
    public const string Unauthenticated = "unauthenticated";
    public const string PermissionDenied = "permission_denied";
    public const string NotFound = "not_found";
    public const string Conflict = "conflict";
    public const string ResourceExhausted = "resource_exhausted";
    public const string Cancelled = "cancelled";
    public const string DeadlineExceeded = "deadline_exceeded";
    public const string Unimplemented = "unimplemented";
    public const string Unavailable = "unavailable";
    public const string Internal = "internal";
    public const string ClientError = "client_error";

    public static string FromHttpStatus(int status) => status switch
    {
        < 400 => Ok,
        400 or 413 or 414 or 415 or 422 or 431 => InvalidArgument,
        401 => Unauthenticated,
        403 => PermissionDenied,
        404 => NotFound,
        409 or 412 => Conflict,
        429 => ResourceExhausted,
        499 => Cancelled,
        405 or 426 or 501 => Unimplemented,
        408 or 504 => DeadlineExceeded,
        503 or 502 => Unavailable,
        < 500 => ClientError,
        _ => Internal,
    };

    /// <summary>The outcome of a gRPC status code (the numbers of grpc/grpc doc/statuscodes.md).</summary>
    public static string FromGrpcStatus(int status) => status switch
    {
        0 => Ok,
        1 => Cancelled,
        3 or 9 or 11 => InvalidArgument,
        4 => DeadlineExceeded,
        5 => NotFound,
        6 or 10 => Conflict,
        7 => PermissionDenied,
        8 => ResourceExhausted,
        12 => Unimplemented,
        14 => Unavailable,
        16 => Unauthenticated,
        _ => Internal,
    };
}
