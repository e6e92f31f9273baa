using System.Text;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.Domain.Requests;

/// <summary>
/// The bytes one paged answer may carry, besides its count of items. A highlight may hold 10,000
/// characters of text, 10,000 of note and 4,096 of location, up to 72 KB in UTF-8, so a page counted
/// in items alone could reach tens of megabytes. A page ends early when the next item would take it
/// past <see cref="MaxBytes"/>; its first item always joins, so paging moves on even past an item
/// larger than the budget; the cursor or token continues after the last item included.
/// </summary>
/// <para>An item's size is the UTF-8 length of its variable text (id, text, note, location, title,
/// author, reading location) plus <see cref="ItemOverheadBytes"/> for its fixed fields and names: what the
/// store holds, in the units PostgreSQL's <c>octet_length</c> counts, so a query can apply the same
/// measure. JSON may escape some characters to longer forms; the measure is of the item, not of its wire form.</para>
public sealed record PageBudget(int MaxBytes)
{
    /// <summary>
    /// 1 MiB: at least 14 of the largest legal highlights, and about 2,500 typical ones (text of a few
    /// hundred characters), so ordinary pages end at their item count; a device on a slow link receives a
    /// page in seconds, not minutes.
    /// </summary>
    public const int DefaultMaxBytes = 1024 * 1024;

    /// <summary>The fixed fields of an item and their names, as an upper bound of what JSON writes for them.</summary>
    public const int ItemOverheadBytes = 256;

    public static PageBudget Default { get; } = new(DefaultMaxBytes);

    /// <summary>An empty page, to fill item by item in order (<see cref="PageFill.TryTake"/>).</summary>
    public PageFill Start() => new(MaxBytes);

    public static int SizeOf(HighlightView highlight) =>
        ItemOverheadBytes + Utf8(highlight.Id) + Utf8(highlight.Text) + Utf8(highlight.Note) + Utf8(highlight.Location);

    /// <summary>A change of the pull; for a highlight, the measure <c>HighlightSyncQueries.HighlightChanges</c> applies in SQL.</summary>
    public static int SizeOf(SyncChange change) =>
        ItemOverheadBytes + Utf8(change.Id) + Utf8(change.Text) + Utf8(change.Note) + Utf8(change.Location)
        + Utf8(change.Title) + Utf8(change.Author) + Utf8(change.ReadingState?.Position?.Location)
        + (change.Collection is { } collection ? Utf8(collection.Name) + (collection.Books.Count * Collections.CollectionSync.BytesPerBook) : 0);

    public static int Utf8(string? text) => text is null ? 0 : Encoding.UTF8.GetByteCount(text);
}

/// <summary>What a page has taken of its <see cref="PageBudget"/> so far: a local, filled in the order items are delivered.</summary>
public struct PageFill(int maxBytes)
{
    private long _bytes;

    /// <summary>Items taken.</summary>
    public int Count { get; private set; }

    /// <summary>Takes an item of <paramref name="itemBytes"/> unless it would pass the budget; the first item is always taken.</summary>
    public bool TryTake(int itemBytes)
    {
        if (Count > 0 && _bytes + itemBytes > maxBytes)
        {
            return false;
        }

        _bytes += itemBytes;
        Count++;
        return true;
    }

    /// <summary>Adds <paramref name="item"/> to <paramref name="page"/> when <see cref="TryTake"/> takes it.</summary>
    public bool TryAdd<T>(List<T> page, T item, int itemBytes)
    {
        if (!TryTake(itemBytes))
        {
            return false;
        }

        page.Add(item);
        return true;
    }
}
