using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ChangeFeed;

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
    : RequestRejectedException("The sync token is older than the tombstone retention: start a full sync (no 'since') and replace the local copy.");

/// <summary>
/// A push that would take the user past the highlights the service keeps for one user (REST 409, gRPC
/// FAILED_PRECONDITION). The whole push is refused and nothing of it stored, as for a batch too large:
/// the quota is the user's state, not a fault of one change, and storing the part that fits would make the
/// outcome depend on the order of the batch. A push that adds nothing (deletions, edits that shrink) passes.
/// </summary>
public sealed class HighlightQuotaExceededException(HighlightHoldings after, long maxCount, long maxBytes)
    : RequestRejectedException(
        $"This push would leave the user with {after.Count} highlights holding {after.Bytes} bytes of text, notes and locations; " +
        $"the service keeps at most {maxCount} highlights and {maxBytes} bytes per user. Nothing of it was stored: delete highlights first.")
{
    public long MaxCount { get; } = maxCount;

    public long MaxBytes { get; } = maxBytes;
}

/// <summary>
/// A push that would store more tombstones (deletes of highlights the service never stored, kept until the
/// purge) than <see cref="Setting"/> allows one user (REST 409, gRPC FAILED_PRECONDITION). Nothing of it is stored.
/// </summary>
public sealed class TombstoneQuotaExceededException(long after, long max)
    : RequestRejectedException(
        $"This push would leave the user with {after} deleted highlights kept for devices to pull; the service keeps at most {max} " +
        $"per user ({TombstoneQuotaExceededException.Setting}) until the purge removes them. Nothing of it was stored.")
{
    public const string Setting = "Sync:MaxTombstonesPerUser";

    public long Max { get; } = max;
}
