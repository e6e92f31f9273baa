namespace Kobo.Sync.Domain.Queries;

/// <summary>One page of highlights in id order; <see cref="NextCursor"/> is null on the last page.</summary>
public sealed record HighlightPage(IReadOnlyList<HighlightView> Items, string? NextCursor);
