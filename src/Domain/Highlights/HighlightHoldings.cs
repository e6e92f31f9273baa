using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// What a user holds of highlights, as the per-user quotas count it: live highlights and the UTF-8 bytes
/// of their text, note and location, and tombstones (deleted highlights kept until the purge). The store
/// keeps the three per user, changed in the transaction of every push by <see cref="Change"/>, so the
/// quotas cost no count query.
/// </summary>
public readonly record struct HighlightHoldings(long Count, long Bytes, long Tombstones = 0)
{
    public static HighlightHoldings Of(HighlightState? state) =>
        state is null ? default
        : state.Deleted ? new(0, 0, 1)
        : new(1, PageBudget.Utf8(state.Text) + PageBudget.Utf8(state.Note) + PageBudget.Utf8(state.Location));

    /// <summary>
    /// What storing <paramref name="writes"/> over <paramref name="stored"/> adds to the user's holdings (negative when it frees).
    /// </summary>
    public static HighlightHoldings Change(
        IReadOnlyDictionary<HighlightId, HighlightState> stored, IReadOnlyList<HighlightState> writes)
    {
        long count = 0, bytes = 0, tombstones = 0;
        for (var i = 0; i < writes.Count; i++)
        {
            var write = writes[i];
            var after = Of(write);
            var before = Of(stored.GetValueOrDefault(write.Id));
            count += after.Count - before.Count;
            bytes += after.Bytes - before.Bytes;
            tombstones += after.Tombstones - before.Tombstones;
        }

        return new(count, bytes, tombstones);
    }
}
