using System.Text;

namespace Kobo.Sync.Domain.Requests;

/// <summary>
/// The bytes one paged answer may carry, besides its count of items. A highlight may hold 10,000
/// characters of text, 10,000 of note and 4,096 of location, up to 72 KB in UTF-8, so a page counted
/// in items alone could reach tens of megabytes. A page ends early when the next item would take it
/// past <see cref="MaxBytes"/>; its first item always joins, so paging moves on even past an item
/// larger than the budget; the cursor or token continues after the last item included.
/// </summary>
/// <para>An item's size is what its variable text (id, text, note, location, title, author, reading
/// location) can take on the wire (<see cref="JsonBytes"/>: JSON escapes a quote, a control character, an
/// HTML-sensitive one such as <c>&lt;</c>, and by default every non-ASCII character, to six bytes) plus
/// <see cref="ItemOverheadBytes"/> for its fixed fields and names. So a page's bytes bound what is sent,
/// escapes included. A query that cuts rows short of the budget measures them in UTF-8
/// (<c>octet_length</c>), never more than this: it always leaves the page at least the rows it can take.</para>
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

    /// <summary>The UTF-8 length of a text: what the store holds (the quotas count it).</summary>
    public static int Utf8(string? text) => text is null ? 0 : Encoding.UTF8.GetByteCount(text);

    /// <summary>
    /// The most bytes a text can take inside a JSON string, whichever encoder writes it: a printable ASCII
    /// character that no encoder escapes is one byte, any other UTF-16 code unit at most six (<c>\u003C</c>).
    /// Text of plain ASCII, the usual case, is measured by one vectorized search.
    /// </summary>
    public static int JsonBytes(string? text)
    {
        if (text is null)
        {
            return 0;
        }

        var span = text.AsSpan();
        var first = span.IndexOfAnyExcept(Plain);
        if (first < 0)
        {
            return span.Length;
        }

        var bytes = first;
        foreach (var c in span[first..])
        {
            bytes += Plain.Contains(c) ? 1 : EscapedBytes;
        }

        return bytes;
    }

    /// <summary>The longest escape a JSON encoder writes for one UTF-16 code unit (<c>\uXXXX</c>).</summary>
    private const int EscapedBytes = 6;

    /// <summary>Printable ASCII that neither the default nor a relaxed JSON encoder escapes.</summary>
    private static readonly System.Buffers.SearchValues<char> Plain = System.Buffers.SearchValues.Create(
        " !#$%()*,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~");
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
