using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// A user's collection as devices receive it (REST, gRPC, the <c>collection</c> change of the pull, a
/// Kobo tag): its client-chosen id, its name, whether it is deleted (a tombstone, with no books), the
/// books in it (present ones, by number), the server time it was created and the latest device time of
/// any write to it. A deleted collection keeps its name, so a device can tell which one went away.
/// </summary>
public sealed record Collection(
    Guid Id, string Name, bool Deleted, [property: JsonIgnore] IReadOnlyList<BookNo> Books,
    DateTimeOffset CreatedAt, DateTimeOffset ModifiedAt)
{
    /// <summary>The books, as sync's JSON writes book numbers: strings, in ascending order.</summary>
    [JsonPropertyName("books")]
    public IEnumerable<string> BookNos => Books.Select(b => b.ToString());

    /// <summary>The change sequence number of the write that created it: a Kobo sync tells a new tag from a changed one by it.</summary>
    [JsonIgnore]
    public long CreatedSeq { get; init; }
}

/// <summary>A page of the user's live collections, with the cursor of the next page (null on the last).</summary>
public sealed record CollectionList(IReadOnlyList<Collection> Collections, string? NextCursor);
