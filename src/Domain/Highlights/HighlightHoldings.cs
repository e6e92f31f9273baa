using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// What a user holds of highlights, as the per-user quota counts it: live highlights (tombstones do not
/// count) and the UTF-8 bytes of their text, note and location. The store keeps both per user, changed
/// in the transaction of every push by <see cref="Change"/>, so the quota costs no count query.
/// </summary>
public readonly record struct HighlightHoldings(long Count, long Bytes)
{
    public static HighlightHoldings Of(HighlightState? state) =>
        state is null || state.Deleted
            ? default
            : new(1, PageBudget.Utf8(state.Text) + PageBudget.Utf8(state.Note) + PageBudget.Utf8(state.Location));

    /// <summary>What storing <paramref name="writes"/> over <paramref name="stored"/> adds to the user's holdings (negative when it frees).</summary>
    public static HighlightHoldings Change(
        IReadOnlyDictionary<HighlightId, HighlightState> stored, IReadOnlyList<HighlightState> writes)
    {
        long count = 0, bytes = 0;
        for (var i = 0; i < writes.Count; i++)
        {
            var write = writes[i];
            var after = Of(write);
            var before = Of(stored.GetValueOrDefault(write.Id));
            count += after.Count - before.Count;
            bytes += after.Bytes - before.Bytes;
        }

        return new(count, bytes);
    }
}
