using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// One change of a pull. <see cref="Kind"/> is <c>highlight</c> (a tombstone has
/// <see cref="Deleted"/> true and no content), <c>entitlement</c> (a book the user owns, or no
/// longer owns when <see cref="Removed"/>) or <c>readingState</c> (the whole current reading state of
/// a book, in <see cref="ReadingState"/>) or <c>collection</c> (the whole current collection, in
/// <see cref="Collection"/>, with no book number). Fields of the other kinds are null and left out of JSON.
/// A highlight's <see cref="Location"/> is its Kobo location as sent, absent when it has none.
/// </summary>
public sealed record SyncChange(
    string Kind,
    string? Id,
    string? BookNo,
    string? Key,
    string? Text,
    int? Start,
    int? Length,
    string? Color,
    string? Note,
    DateTimeOffset? CreatedAt,
    DateTimeOffset ModifiedAt,
    bool? Deleted,
    string? Version,
    string? Title,
    string? Author,
    bool? Removed,
    string? Location = null)
{
    public const string HighlightKind = "highlight";
    public const string EntitlementKind = "entitlement";
    public const string ReadingStateKind = "readingState";
    public const string CollectionKind = "collection";

    /// <summary>A <c>readingState</c> change's state: the same object a device reads with GET; null for the other kinds.</summary>
    public ReadingStates.ReadingState? ReadingState { get; init; }

    /// <summary>A <c>collection</c> change's collection, deleted or not; null for the other kinds.</summary>
    public Collections.Collection? Collection { get; init; }

    public static SyncChange Of(HighlightState h) => new(
        HighlightKind, h.Id.ToString(), h.Id.Book.ToString(), h.Id.Key.Value, h.Text, h.Start, h.Length, h.Color, h.Note,
        h.CreatedAt, h.ModifiedAt, h.Deleted, Versions.Format(h.Version), null, null, null, h.Location);

    public static SyncChange Of(EntitlementState e) => new(
        EntitlementKind, null, e.BookNo.ToString(System.Globalization.CultureInfo.InvariantCulture), null, null, null, null, null, null,
        null, e.ModifiedAt, null, null, e.Title, e.Author, e.Removed);

    /// <summary>A stored reading state: it has at least one group, so a modification time.</summary>
    public static SyncChange Of(ReadingStates.ReadingState r) => new(
        ReadingStateKind, null, r.BookNumber, null, null, null, null, null, null, null,
        r.ModifiedAt ?? throw new ArgumentException("A stored reading state has at least one group.", nameof(r)),
        null, null, null, null, null)
    {
        ReadingState = r,
    };

    /// <summary>A collection as stored now; its id is the change's id.</summary>
    public static SyncChange Of(Collections.Collection c) => new(
        CollectionKind, Collections.CollectionValidation.Format(c.Id), null, null, null, null, null, null, null, c.CreatedAt, c.ModifiedAt,
        c.Deleted, null, null, null, null)
    {
        Collection = c,
    };

    /// <summary>
    /// The most bytes this change takes in a pull's page on the wire (<see cref="PageBudget"/>); for a highlight,
    /// at least the measure <c>HighlightSyncQueries.HighlightChanges</c> applies in SQL.
    /// </summary>
    public int PageBytes() =>
        PageBudget.ItemOverheadBytes + PageBudget.JsonBytes(Id) + PageBudget.JsonBytes(Text) + PageBudget.JsonBytes(Note)
        + PageBudget.JsonBytes(Location) + PageBudget.JsonBytes(Title) + PageBudget.JsonBytes(Author)
        + PageBudget.JsonBytes(ReadingState?.Position?.Location)
        + (Collection is { } collection
            ? PageBudget.JsonBytes(collection.Name) + (collection.Books.Count * Collections.CollectionSync.BytesPerBook)
            : 0);
}

/// <summary>A page of changes after a sync token, the token to send next time, and whether more changes wait.</summary>
public sealed record SyncChangePage(IReadOnlyList<SyncChange> Changes, string SyncToken, bool HasMore)
{
    /// <summary>
    /// Which page of its sync this is (1 for the first pull after a complete one); on the last page
    /// (<see cref="HasMore"/> false) the number of pages the sync took. For telemetry, not sent to devices.
    /// </summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public int PageOfSync { get; init; } = 1;

    /// <summary>
    /// On a last page (<see cref="HasMore"/> false): the user's change sequence number up to which this
    /// pull delivered everything, so a change numbered higher is one the device has not seen; null when
    /// more pages follow. For live pull, which waits for a higher number; not sent to devices.
    /// </summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public long? CaughtUpThrough { get; init; }
}

/// <summary>A user's ownership of a book as devices receive it.</summary>
public sealed record EntitlementState(long BookNo, string Title, string? Author, bool Removed, DateTimeOffset ModifiedAt);
