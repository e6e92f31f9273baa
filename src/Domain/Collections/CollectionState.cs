using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// A collection as stored, with the clock of each of its registers (<see cref="CollectionRules"/>):
/// the name with the device time of its last write, the liveness (live or deleted) with the device time
/// of its last write, and one membership register per book ever added or removed.
/// </summary>
public sealed record CollectionState(
    Guid Id,
    string Name,
    DateTimeOffset NameAt,
    bool Deleted,
    DateTimeOffset LivenessAt,
    DateTimeOffset CreatedAt,
    IReadOnlyDictionary<BookNo, Membership> Books)
{
    /// <summary>The books present in it, in ascending order; none while it is deleted.</summary>
    public IReadOnlyList<BookNo> PresentBooks() =>
        Deleted ? [] : [.. Books.Where(b => b.Value.Present).Select(b => b.Key).OrderBy(b => b.Value)];

    /// <summary>The latest device time of any register: what devices see as its modification time.</summary>
    public DateTimeOffset ModifiedAt
    {
        get
        {
            var latest = NameAt > LivenessAt ? NameAt : LivenessAt;
            foreach (var membership in Books.Values)
            {
                if (membership.At > latest)
                {
                    latest = membership.At;
                }
            }

            return latest;
        }
    }

    public Collection ToView() => new(Id, Name, Deleted, PresentBooks(), CreatedAt, ModifiedAt);
}

/// <summary>A book's membership register: present or removed, at the device time of its last add or remove.</summary>
public readonly record struct Membership(bool Present, DateTimeOffset At);
