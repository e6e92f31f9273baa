namespace Kobo.Sync.Domain.Reading;

/// <summary>A highlight as a device sees it; <see cref="Id"/> is the full highlight id string.</summary>
public sealed record HighlightView(
    string Id,
    long BookNo,
    string Text,
    int Start,
    int Length,
    string Color,
    string? Note,
    DateTimeOffset CreatedAt,
    DateTimeOffset ModifiedAt);
