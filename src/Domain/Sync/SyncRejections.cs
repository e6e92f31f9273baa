using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.Domain.Sync;

/// <summary>A push with more changes than one batch may hold (REST 413, gRPC INVALID_ARGUMENT).</summary>
public sealed class BatchTooLargeException(int count, int max)
    : RequestRejectedException($"A push holds at most {max} changes; this one holds {count}. Split it into batches.")
{
    public const string Field = "changes";
}

/// <summary>
/// A sync token older than the tombstone retention: deletions it has not seen may be purged, so the
/// device must discard its copy and start a full sync (REST 410, gRPC FAILED_PRECONDITION).
/// </summary>
public sealed class SyncTokenExpiredException()
    : RequestRejectedException("The sync token is older than the tombstone retention: start a full sync (no 'since') and replace the local copy.");
