using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.Collections;

/// <summary>The per-register last-writer-wins rule of collections, without storage.</summary>
public sealed class CollectionRulesTests
{
    private static readonly DateTimeOffset T0 = new(2026, 11, 20, 8, 0, 0, TimeSpan.Zero);
    private static readonly Guid Id = Guid.NewGuid();
    private static readonly HashSet<BookNo> Owned = [new(1), new(2), new(3)];

    private static CollectionState Apply(CollectionState? state, ValidCollectionOp op, out string status)
    {
        var outcome = CollectionRules.Apply(state, op, Owned, T0);
        status = outcome.Status;
        return outcome.State!;
    }

    private static ValidCollectionOp Upsert(string name, int minutes) => new(CollectionOpKind.Upsert, Id, name, [], T0.AddMinutes(minutes));

    private static ValidCollectionOp Delete(int minutes) => new(CollectionOpKind.Delete, Id, null, [], T0.AddMinutes(minutes));

    private static ValidCollectionOp Add(int minutes, params long[] books) =>
        new(CollectionOpKind.AddBooks, Id, null, [.. books.Select(b => new BookNo(b))], T0.AddMinutes(minutes));

    private static ValidCollectionOp Remove(int minutes, params long[] books) =>
        new(CollectionOpKind.RemoveBooks, Id, null, [.. books.Select(b => new BookNo(b))], T0.AddMinutes(minutes));

    [Fact]
    public void ADeletionOutranksEveryOlderRenameAndAddButANewerUpsertBringsItBack()
    {
        var state = Apply(null, Upsert("a", 0), out _);
        state = Apply(state, Add(1, 1), out _);
        state = Apply(state, Delete(10), out var deleted);

        var afterRename = Apply(state, Upsert("b", 5), out var rename);
        var afterAdd = Apply(state, Add(6, 2), out var add);
        var revived = Apply(state, Upsert("c", 11), out var revive);

        Assert.Equal((ChangeStatus.Applied, ChangeStatus.Conflict, ChangeStatus.Conflict, ChangeStatus.Applied), (deleted, rename, add, revive));
        Assert.True(afterRename.Deleted && afterAdd.Deleted);
        Assert.Equal("a", afterRename.Name);
        Assert.Empty(afterAdd.PresentBooks());
        Assert.Equal(("c", false), (revived.Name, revived.Deleted));
        Assert.Equal([new BookNo(1)], revived.PresentBooks());
    }

    [Fact]
    public void ATieKeepsWhatIsStored()
    {
        var state = Apply(null, Upsert("a", 0), out _);

        Apply(state, Upsert("b", 0), out var rename);
        Apply(state, Delete(0), out var delete);

        Assert.Equal((ChangeStatus.Conflict, ChangeStatus.Conflict), (rename, delete));
    }

    [Fact]
    public void MembershipIsARegisterPerBookSoChangesOfDifferentBooksMergeAndTheLaterOfOneBookWins()
    {
        var state = Apply(null, Upsert("a", 0), out _);
        state = Apply(state, Add(1, 1), out _);
        state = Apply(state, Remove(5, 2), out _);

        // Another device added 2 and 3 at minute 3: 3 joins, 2 stays removed (removed later).
        state = Apply(state, Add(3, 2, 3), out var add);
        var stale = Apply(state, Remove(0, 1), out var staleRemove);

        Assert.Equal((ChangeStatus.Applied, ChangeStatus.Conflict), (add, staleRemove));
        Assert.Equal([new BookNo(1), new BookNo(3)], state.PresentBooks());
        Assert.Equal(state.PresentBooks(), stale.PresentBooks());
    }

    [Fact]
    public void AddingABookTheUserNeverHadIsRejectedAndAnUnknownCollectionCannotChange()
    {
        var state = Apply(null, Upsert("a", 0), out _);

        var notOwned = CollectionRules.Apply(state, Add(1, 9), Owned, T0);
        var unknown = CollectionRules.Apply(null, Add(1, 1), Owned, T0);
        var deleteUnknown = CollectionRules.Apply(null, Delete(1), Owned, T0);

        Assert.Equal((ChangeStatus.Rejected, false), (notOwned.Status, notOwned.Writes));
        Assert.Equal((ChangeStatus.Rejected, false), (unknown.Status, unknown.Writes));
        Assert.Equal((ChangeStatus.Unchanged, false), (deleteUnknown.Status, deleteUnknown.Writes));
    }

    [Fact]
    public void TheSameUpsertAgainIsUnchangedAndWritesNothing()
    {
        var state = Apply(null, Upsert("a", 0), out _);

        var outcome = CollectionRules.Apply(state, Upsert("a", 0), Owned, T0);

        Assert.Equal((ChangeStatus.Unchanged, false), (outcome.Status, outcome.Writes));
    }

    [Fact]
    public void ValidationClampsAFutureTimeAndNamesTheBrokenField()
    {
        var now = T0;
        var future = CollectionValidation.Check(
            new PushedCollectionOp("upsert", Id.ToString(), "n", null, DeviceTime.FromInstant(now.AddDays(1))), 10, now, TimeSpan.FromMinutes(5), out _, out _);
        var tooMany = CollectionValidation.Check(
            new PushedCollectionOp("addBooks", Id.ToString(), null, ["1", "2", "3"], DeviceTime.FromInstant(now)), 2, now, TimeSpan.FromMinutes(5), out _, out var reason);

        Assert.Equal(now, future!.At);
        Assert.Null(tooMany);
        Assert.StartsWith("bookNos:", reason, StringComparison.Ordinal);
    }
}
