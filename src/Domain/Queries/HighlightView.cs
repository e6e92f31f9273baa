using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Queries;

/// <summary>
/// A highlight as a device sees it; <see cref="Id"/> is the full highlight id string, <see cref="Location"/> its Kobo location as sent
/// (null when none).
/// </summary>
public sealed record HighlightView(
    string Id,
    long BookNo,
    string Text,
    int Start,
    int Length,
    string Color,
    string? Note,
    DateTimeOffset CreatedAt,
    DateTimeOffset ModifiedAt,
    [property: System.Text.Json.Serialization.JsonIgnore(Condition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingNull)]
    string? Location = null)
{
    /// <summary>The most bytes this highlight takes in a page on the wire (<see cref="PageBudget"/>).</summary>
    public int PageBytes() =>
        PageBudget.ItemOverheadBytes + PageBudget.JsonBytes(Id) + PageBudget.JsonBytes(Text) + PageBudget.JsonBytes(Note)
        + PageBudget.JsonBytes(Location);
}
