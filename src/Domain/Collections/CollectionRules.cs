using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// How an operation meets the stored collection (docs/api.md, "Collections"): last writer wins on device
/// time, per register, a tie keeping what is stored, as a highlight's fields and a reading state's groups do.
/// <list type="bullet">
/// <item>The name is one register. An upsert with the stored name is <c>unchanged</c> (it takes the later
/// time); with another name it is <c>applied</c> when its time is after the name's, a <c>conflict</c> otherwise.</item>
/// <item>Liveness is one register: an upsert makes the collection live at its time, a delete deletes it
/// at its time. So a collection deleted at t stays deleted against a stale device: an upsert at or before
/// t is a <c>conflict</c> and changes nothing (not even the name). An upsert after t brings it back.</item>
/// <item>Membership is one register per book: add makes the book present at its time, remove absent at
/// its time, each against that book's own time, so two devices' membership changes merge. Books are
/// hidden while the collection is deleted, not removed. An add or remove on a deleted collection is a
/// <c>conflict</c> and changes nothing; on a collection never created it is <c>rejected</c>.</item>
/// <item>A delete of a collection never created is <c>unchanged</c>: nothing is stored.</item>
/// </list>
/// Adding a book the user has never had in their library rejects the operation (naming the book).
/// </summary>
public static class CollectionRules
{
    public static CollectionOutcome Apply(CollectionState? stored, ValidCollectionOp op, IReadOnlySet<BookNo> owned, DateTimeOffset now) =>
        op.Kind switch
        {
            CollectionOpKind.Upsert => Upsert(stored, op, now),
            CollectionOpKind.Delete => Delete(stored, op),
            _ => Membership(stored, op, owned),
        };

    private static CollectionOutcome Upsert(CollectionState? stored, ValidCollectionOp op, DateTimeOffset now)
    {
        var name = op.Name!;
        if (stored is null)
        {
            return CollectionOutcome.Write(
                new CollectionState(op.Id, name, op.At, false, op.At, DeviceTime.ToMicroseconds(now), new Dictionary<BookNo, Membership>()),
                ChangeStatus.Applied);
        }

        if (stored.Deleted && op.At <= stored.LivenessAt)
        {
            return CollectionOutcome.Keep(
                stored, ChangeStatus.Conflict, "The collection was deleted at a later device time; it stays deleted.");
        }

        var revived = stored.Deleted;
        var state = stored with { Deleted = false, LivenessAt = Later(stored.LivenessAt, op.At) };
        string status;
        string? reason = null;
        if (name == stored.Name)
        {
            state = state with { NameAt = Later(stored.NameAt, op.At) };
            status = revived ? ChangeStatus.Applied : ChangeStatus.Unchanged;
        }
        else if (op.At > stored.NameAt)
        {
            state = state with { Name = name, NameAt = op.At };
            status = ChangeStatus.Applied;
        }
        else
        {
            status = revived ? ChangeStatus.Applied : ChangeStatus.Conflict;
            reason = "A name written at a later or equal device time is stored and stays.";
        }

        return state == stored ? CollectionOutcome.Keep(stored, status, reason) : CollectionOutcome.Write(state, status, reason);
    }

    private static CollectionOutcome Delete(CollectionState? stored, ValidCollectionOp op)
    {
        if (stored is null)
        {
            return new CollectionOutcome(null, ChangeStatus.Unchanged, null, [], false);
        }

        if (stored.Deleted)
        {
            return op.At > stored.LivenessAt
                ? CollectionOutcome.Write(stored with { LivenessAt = op.At }, ChangeStatus.Unchanged)
                : CollectionOutcome.Keep(stored, ChangeStatus.Unchanged);
        }

        return op.At > stored.LivenessAt
            ? CollectionOutcome.Write(stored with { Deleted = true, LivenessAt = op.At }, ChangeStatus.Applied)
            : CollectionOutcome.Keep(
                stored, ChangeStatus.Conflict, "The collection was created or renamed at a later or equal device time; it stays.");
    }

    private static CollectionOutcome Membership(CollectionState? stored, ValidCollectionOp op, IReadOnlySet<BookNo> owned)
    {
        var add = op.Kind == CollectionOpKind.AddBooks;
        if (stored is null)
        {
            return new CollectionOutcome(
                null, ChangeStatus.Rejected, "collectionId: no collection has this id; create it with an upsert first.", [], false);
        }

        if (stored.Deleted)
        {
            return CollectionOutcome.Keep(stored, ChangeStatus.Conflict, "The collection is deleted: its books cannot change.");
        }

        if (add && op.Books.FirstOrDefault(b => !owned.Contains(b)) is { Value: > 0 } missing)
        {
            return CollectionOutcome.Keep(stored, ChangeStatus.Rejected, $"bookNos: book {missing} is not in the user's library.");
        }

        var books = new Dictionary<BookNo, Membership>(stored.Books);
        var changed = new List<BookNo>();
        bool applied = false, conflict = false;
        foreach (var book in op.Books)
        {
            if (!books.TryGetValue(book, out var current))
            {
                // A removal of a book the user never had stores nothing: no add of it can ever be accepted.
                if (add || owned.Contains(book))
                {
                    books[book] = new Membership(add, op.At);
                    changed.Add(book);
                    applied |= add;
                }

                continue;
            }

            if (current.Present == add)
            {
                if (op.At > current.At)
                {
                    books[book] = current with { At = op.At };
                    changed.Add(book);
                }
            }
            else if (op.At > current.At)
            {
                books[book] = new Membership(add, op.At);
                changed.Add(book);
                applied = true;
            }
            else
            {
                conflict = true;
            }
        }

        var status = applied ? ChangeStatus.Applied : conflict ? ChangeStatus.Conflict : ChangeStatus.Unchanged;
        var reason = conflict ? "A book's membership was changed at a later or equal device time; that change stays." : null;
        return changed.Count == 0
            ? CollectionOutcome.Keep(stored, status, reason)
            : new CollectionOutcome(stored with { Books = books }, status, reason, changed, true);
    }

    private static DateTimeOffset Later(DateTimeOffset a, DateTimeOffset b) => a >= b ? a : b;
}

/// <summary>
/// What <see cref="CollectionRules"/> decided for one operation: the collection after it (null when none
/// exists), the result, why (conflicts and rejections), the books whose registers changed, and whether
/// anything must be stored (with a new change sequence number).
/// </summary>
public sealed record CollectionOutcome(
    CollectionState? State, string Status, string? Reason, IReadOnlyList<BookNo> ChangedBooks, bool Writes)
{
    public static CollectionOutcome Write(
        CollectionState state, string status, string? reason = null) => new(state, status, reason, [], true);

    public static CollectionOutcome Keep(
        CollectionState state, string status, string? reason = null) => new(state, status, reason, [], false);
}
