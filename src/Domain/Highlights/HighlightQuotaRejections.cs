using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// A push that would take the user past the highlights the service keeps for one user (REST 409, gRPC
/// FAILED_PRECONDITION). The whole push is refused and nothing of it stored, as for a batch too large:
/// the quota is the user's state, not a fault of one change, and storing the part that fits would make the
/// outcome depend on the order of the batch. A push that adds nothing (deletions, edits that shrink) passes.
/// </summary>
public sealed class HighlightQuotaExceededException(HighlightHoldings after, long maxCount, long maxBytes)
    : RequestRejectedException(
        $"This push would leave the user with {after.Count} highlights holding {after.Bytes} bytes of text, notes and locations; " +
        $"the service keeps at most {maxCount} highlights and {maxBytes} bytes per user. Nothing of it was stored: " +
        $"delete highlights first.")
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
