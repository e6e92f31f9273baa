namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>
/// The merge of a pull's keyset streams by sequence number: each step takes the row with the lowest
/// number, the stream named first winning a tie, and moves that stream's position past it. The page
/// stops at its item limit or at the first row that does not fit (its stream's add refuses it), never
/// skipping that row for a smaller one after it: what a page delivers is a prefix of the merged order,
/// so the token resumes exactly there.
/// </summary>
public static class SequenceMerge
{
    /// <summary>Takes up to <paramref name="limit"/> rows; the position after them, and whether any stream has rows left.</summary>
    public static (SyncPosition Next, bool HasMore) Take(SyncPosition position, int limit, params ReadOnlySpan<ChangeStream> streams)
    {
        var next = position;
        for (var taken = 0; taken < limit; taken++)
        {
            ChangeStream? first = null;
            foreach (var stream in streams)
            {
                if (stream.HasMore && (first is null || stream.NextSeq < first.NextSeq))
                {
                    first = stream;
                }
            }

            if (first is null || !first.TryTake(ref next))
            {
                break;
            }
        }

        foreach (var stream in streams)
        {
            if (stream.HasMore)
            {
                return (next, true);
            }
        }

        return (next, false);
    }
}

/// <summary>One keyset stream of a pull, for <see cref="SequenceMerge"/>.</summary>
public abstract class ChangeStream
{
    /// <summary>Whether rows of the stream remain untaken.</summary>
    public abstract bool HasMore { get; }

    internal abstract long NextSeq { get; }

    /// <summary>Adds the next row to the page unless it does not fit, and moves <paramref name="next"/> past it.</summary>
    internal abstract bool TryTake(ref SyncPosition next);
}

/// <summary>
/// A stream of rows in sequence order: <paramref name="tryAdd"/> puts a row on the page (false when it
/// does not fit), <paramref name="advance"/> moves a position past a taken row (its sequence number and the row).
/// </summary>
public sealed class ChangeStream<T>(
    IReadOnlyList<(long Seq, T Row)> rows, Func<T, bool> tryAdd, Func<SyncPosition, long, T, SyncPosition> advance) : ChangeStream
{
    private int _taken;

    public override bool HasMore => _taken < rows.Count;

    internal override long NextSeq => rows[_taken].Seq;

    internal override bool TryTake(ref SyncPosition next)
    {
        var (seq, row) = rows[_taken];
        if (!tryAdd(row))
        {
            return false;
        }

        _taken++;
        next = advance(next, seq, row);
        return true;
    }
}
