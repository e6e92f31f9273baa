using Kobo.Sync.Domain.ChangeFeed;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

public sealed class SequenceMergeTests
{
    [Fact]
    public void RowsComeInSequenceOrderTheStreamNamedFirstWinningATie()
    {
        var taken = new List<string>();
        var (next, hasMore) = SequenceMerge.Take(
            SyncPosition.Start,
            10,
            Stream(taken, "e", [2, 5]),
            Stream(taken, "c", [1, 2, 7]));

        Assert.Equal(["c1", "e2", "c2", "e5", "c7"], taken);
        Assert.False(hasMore);
        Assert.Equal((5, 7), (next.EntitlementSeq, next.CollectionSeq));
    }

    [Fact]
    public void APageStopsAtItsLimitOrAtTheFirstRowThatDoesNotFit()
    {
        var taken = new List<string>();
        var (next, hasMore) = SequenceMerge.Take(SyncPosition.Start, 2, Stream(taken, "e", [1, 2, 3]));
        Assert.True(hasMore);
        Assert.Equal(2, next.EntitlementSeq);

        var refused = new ChangeStream<long>([(1, 1), (2, 2)], row => row < 2, (p, seq, _) => p with { EntitlementSeq = seq });
        var (stopped, more) = SequenceMerge.Take(SyncPosition.Start, 10, refused, Stream(taken, "c", [3]));
        Assert.True(more);
        Assert.Equal((1, 0), (stopped.EntitlementSeq, stopped.CollectionSeq));
    }

    private static ChangeStream<long> Stream(List<string> taken, string name, long[] seqs) =>
        new(
            seqs.Select(seq => (seq, seq)).ToArray(),
            row =>
            {
                taken.Add(name + row);
                return true;
            },
            (p, seq, _) => name == "e" ? p with { EntitlementSeq = seq } : p with { CollectionSeq = seq });
}
