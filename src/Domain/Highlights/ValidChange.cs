using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// A pushed change that passed validation. <see cref="ModifiedAt"/> is the device time in whole
/// microseconds, already clamped to server time when it lay too far in the future.
/// </summary>
public sealed record ValidChange(
    HighlightId Id,
    bool IsDelete,
    long? BaseVersion,
    string? Text,
    int? Start,
    int? Length,
    string? Color,
    string? Note,
    DateTimeOffset ModifiedAt,
    string? Location = null);
