namespace Kobo.Sync.Domain.Seeding;

/// <summary>
/// A band of the highlights-per-user distribution: how many users hold from Min up to (not including)
/// Max highlights. The published bands share their edges ("2 - 10", "10 - 100"), so each band is read
/// as half-open to keep them disjoint; a band with Min equal to Max holds exactly that many.
/// </summary>
public sealed record HighlightBucket(int MinHighlights, int MaxHighlights, long Users)
{
    public bool Contains(int highlights) =>
        MinHighlights == MaxHighlights
            ? highlights == MinHighlights
            : highlights >= MinHighlights && highlights < MaxHighlights;
}
