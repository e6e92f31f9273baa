
using Kobo.Sync.Domain.Requests;
namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// How a pushed change meets the stored highlight (docs/api.md, "Conflict rules"):
/// <list type="number">
/// <item>No stored highlight: the change is stored (a delete stores a tombstone).</item>
/// <item>The stored content already equals the change: <c>unchanged</c> (a replay).</item>
/// <item>The device's <c>baseVersion</c> is the stored version: the device saw the latest state, so its
/// change follows it and is applied whole.</item>
/// <item>Otherwise the edits are concurrent. A delete wins when its time is at or after the stored
/// highlight's last edit, and loses to a newer edit. An upsert onto a tombstone revives the highlight
/// when its time is after the deletion. An upsert onto a live highlight is merged field by field
/// (text, range = start, length and location, color, note): a field takes the pushed value when the push is
/// newer than that field's last accepted edit; ties keep the stored value. A change that wins nothing
/// is a <c>conflict</c>.</item>
/// </list>
/// Field times only move forward, so replaying an old change never undoes a newer one.
/// </summary>
public static class ConflictRules
{
    public static Decision Decide(HighlightState? stored, ValidChange change, DateTimeOffset now)
    {
        var at = change.ModifiedAt;
        if (stored is null)
        {
            return Decision.Apply(change.IsDelete
                ? new HighlightState(change.Id, null, null, null, null, null, now, at, 1, true, FieldTimes.All(at))
                : new HighlightState(
                    change.Id, change.Text, change.Start, change.Length, change.Color,
                    change.Note, at, at, 1, false, FieldTimes.All(at), change.Location));
        }

        if (stored.HasContentOf(change))
        {
            return Decision.Unchanged(stored);
        }

        var follows = change.BaseVersion == stored.Version;
        if (change.IsDelete)
        {
            return follows || at >= stored.Times.Latest
                ? Decision.Apply(Tombstone(stored, at))
                : Decision.Conflict(stored, "A newer edit of this highlight is stored; it wins over this delete.");
        }

        if (stored.Deleted)
        {
            return follows || at > stored.Times.Latest
                ? Decision.Apply(Whole(stored, change))
                : Decision.Conflict(stored, "This highlight was deleted after this edit; the deletion wins.");
        }

        if (follows)
        {
            return Decision.Apply(Whole(stored, change));
        }

        var merged = Merge(stored, change);
        return merged.HasSameContentAs(stored)
            ? Decision.Conflict(stored, "Newer edits of every field this change touches are stored; they win.")
            : Decision.Apply(merged);
    }

    private static HighlightState Tombstone(HighlightState stored, DateTimeOffset at)
    {
        var time = FieldTimes.Max(at, stored.Times.Latest);
        return stored with
        {
            Text = null, Start = null, Length = null, Color = null, Note = null, Location = null,
            ModifiedAt = time, Version = stored.Version + 1, Deleted = true, Times = FieldTimes.All(time),
        };
    }

    // Every field takes the pushed value. Only the fields that change get the push's time, and times
    // never move back, so an older replay cannot undo this and a concurrent edit of another field still wins.
    private static HighlightState Whole(HighlightState stored, ValidChange change)
    {
        var at = change.ModifiedAt;
        var t = stored.Times;
        var revive = stored.Deleted;
        DateTimeOffset Time(bool changed, DateTimeOffset old) => revive || changed ? FieldTimes.Max(at, old) : old;
        return stored with
        {
            Text = change.Text, Start = change.Start, Length = change.Length, Color = change.Color, Note = change.Note,
            Location = change.Location,
            ModifiedAt = FieldTimes.Max(at, stored.ModifiedAt),
            Version = stored.Version + 1,
            Deleted = false,
            Times = new FieldTimes(
                Time(change.Text != stored.Text, t.Text),
                Time(RangeDiffers(stored, change), t.Range),
                Time(change.Color != stored.Color, t.Color),
                Time(change.Note != stored.Note, t.Note)),
        };
    }

    private static HighlightState Merge(HighlightState stored, ValidChange change)
    {
        var at = change.ModifiedAt;
        var t = stored.Times;
        bool Wins(DateTimeOffset fieldTime) => at > fieldTime;
        var text = Wins(t.Text) && change.Text != stored.Text;
        var range = Wins(t.Range) && RangeDiffers(stored, change);
        var color = Wins(t.Color) && change.Color != stored.Color;
        var note = Wins(t.Note) && change.Note != stored.Note;
        if (!(text || range || color || note))
        {
            return stored;
        }

        return stored with
        {
            Text = text ? change.Text : stored.Text,
            Start = range ? change.Start : stored.Start,
            Length = range ? change.Length : stored.Length,
            Location = range ? change.Location : stored.Location,
            Color = color ? change.Color : stored.Color,
            Note = note ? change.Note : stored.Note,
            ModifiedAt = FieldTimes.Max(at, stored.ModifiedAt),
            Version = stored.Version + 1,
            Times = new FieldTimes(text ? at : t.Text, range ? at : t.Range, color ? at : t.Color, note ? at : t.Note),
        };
    }

    private static bool HasSameContentAs(this HighlightState a, HighlightState b) =>
        a.Deleted == b.Deleted && a.Text == b.Text && a.Start == b.Start && a.Length == b.Length && a.Color == b.Color && a.Note == b.Note
        && a.Location == b.Location;

    // The range is where the passage is: start, length and the Kobo location change together.
    private static bool RangeDiffers(HighlightState stored, ValidChange change) =>
        change.Start != stored.Start || change.Length != stored.Length
            || !string.Equals(change.Location, stored.Location, StringComparison.Ordinal);
}

/// <summary>What <see cref="ConflictRules"/> decided: the state to store (when applied) and the device's result.</summary>
public sealed record Decision(string Status, HighlightState State, string? Reason)
{
    public bool Writes => Status == ChangeStatus.Applied;

    public static Decision Apply(HighlightState state) => new(ChangeStatus.Applied, state, null);

    public static Decision Unchanged(HighlightState stored) => new(ChangeStatus.Unchanged, stored, null);

    public static Decision Conflict(HighlightState stored, string reason) => new(ChangeStatus.Conflict, stored, reason);
}
