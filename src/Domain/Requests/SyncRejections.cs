
namespace Kobo.Sync.Domain.Requests;

/// <summary>A push with more changes than one batch may hold (REST 413, gRPC INVALID_ARGUMENT).</summary>
public sealed class BatchTooLargeException(int count, int max)
    : RequestRejectedException($"A push holds at most {max} changes; this one holds {count}. Split it into batches.")
{
    public const string Field = "changes";
}

/// <summary>
/// A revocation beyond the revoked devices a user may hold at a time (REST 409, gRPC FAILED_PRECONDITION):
/// the place left free keeps a new device of the user from finding no room.
/// </summary>
public sealed class TooManyRevokedDevicesException(int max)
    : RequestRejectedException(
        $"This user already has {max} revoked devices whose revocations are in force; another device can be revoked " +
        "once the oldest of them lapses (a revocation lasts as long as the tokens it refuses can live).");

/// <summary>
/// A sync token older than the tombstone retention: deletions it has not seen may be purged, so the
/// device must discard its copy and start a full sync (REST 410, gRPC FAILED_PRECONDITION).
/// </summary>
public sealed class SyncTokenExpiredException()
    : RequestRejectedException(
        "The sync token is older than the tombstone retention: start a full sync (no 'since') and replace the local copy.");
