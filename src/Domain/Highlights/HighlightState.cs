using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// A highlight as sync sees it: content, server version, and the device time of the last accepted
/// edit of each field (the last-writer-wins clock). A tombstone (<see cref="Deleted"/>) has no content.
/// <see cref="Location"/> (a Kobo location, kept as sent) is part of the range: it says where the passage is.
/// </summary>
public sealed record HighlightState(
    HighlightId Id,
    string? Text,
    int? Start,
    int? Length,
    string? Color,
    string? Note,
    DateTimeOffset CreatedAt,
    DateTimeOffset ModifiedAt,
    long Version,
    bool Deleted,
    FieldTimes Times,
    string? Location = null)
{
    /// <summary>The same content as <paramref name="change"/> (deleted flag included).</summary>
    public bool HasContentOf(ValidChange change) =>
        change.IsDelete
            ? Deleted
            : !Deleted && Text == change.Text && Start == change.Start && Length == change.Length
              && Color == change.Color && Note == change.Note && Location == change.Location;
}

/// <summary>
/// Device times (clamped) of the last accepted edit of each field. Start, length and location form one
/// field, the passage's range: a range is only meaningful whole.
/// </summary>
public readonly record struct FieldTimes(DateTimeOffset Text, DateTimeOffset Range, DateTimeOffset Color, DateTimeOffset Note)
{
    public static FieldTimes All(DateTimeOffset at) => new(at, at, at, at);

    public DateTimeOffset Latest => Max(Max(Text, Range), Max(Color, Note));

    public static DateTimeOffset Max(DateTimeOffset a, DateTimeOffset b) => a >= b ? a : b;
}
