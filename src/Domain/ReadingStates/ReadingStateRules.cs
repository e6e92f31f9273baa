using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>
/// How a put meets the stored reading state (docs/api.md, "Reading state"), group by group (position,
/// status, statistics), each on its own device time, as a highlight's fields are merged in
/// <see cref="ConflictRules"/>:
/// <list type="number">
/// <item>A group the put does not carry is kept as stored.</item>
/// <item>A group never stored takes the put's value (<c>applied</c>).</item>
/// <item>A group whose stored value equals the put's is <c>unchanged</c>; it takes the later of the two
/// times, so a re-send writes nothing and an equal value sent later still outranks an older put.</item>
/// <item>Otherwise the later device time wins: the put's group is <c>applied</c> when its time is after the
/// stored group's, and is a <c>conflict</c> (the stored value stays) when it is older or equal. So a
/// stale device never moves a position backwards, and a tie keeps what is stored.</item>
/// </list>
/// Times arrive clamped to the server's clock plus the allowed skew (<see cref="ReadingStateValidation"/>).
/// </summary>
public static class ReadingStateRules
{
    public static ReadingStateDecision Decide(BookNo book, ReadingState? stored, ValidReadingState put)
    {
        var current = stored ?? ReadingState.Empty(book);
        var position = Group(
            current.Position, put.Position, p => p.ModifiedAt, (a, b) => a.Percent.Equals(b.Percent) && a.Location == b.Location);
        var status = Group(current.Status, put.Status, s => s.ModifiedAt, (a, b) => a.Value == b.Value);
        var statistics = Group(current.Statistics, put.Statistics, s => s.ModifiedAt, (a, b) => a.TimeSpentMinutes == b.TimeSpentMinutes);
        var state = current with { Position = position.Value, Status = status.Value, Statistics = statistics.Value };
        var writes = !Equals(state.Position, current.Position) || !Equals(state.Status, current.Status)
            || !Equals(state.Statistics, current.Statistics);
        return new ReadingStateDecision(state, new ReadingStateResults(position.Result, status.Result, statistics.Result), writes);
    }

    private static (T? Value, string? Result) Group<T>(T? stored, T? put, Func<T, DateTimeOffset> time, Func<T, T, bool> sameValue)
        where T : class
    {
        if (put is null)
        {
            return (stored, null);
        }

        if (stored is null)
        {
            return (put, ChangeStatus.Applied);
        }

        if (sameValue(stored, put))
        {
            return (time(put) > time(stored) ? put : stored, ChangeStatus.Unchanged);
        }

        return time(put) > time(stored) ? (put, ChangeStatus.Applied) : (stored, ChangeStatus.Conflict);
    }
}

/// <summary>What <see cref="ReadingStateRules"/> decided: the resulting state and each carried group's result.</summary>
/// <param name="Writes">True when a group's value or time changed: the state must be stored (with a new change sequence number).</param>
public sealed record ReadingStateDecision(ReadingState State, ReadingStateResults Results, bool Writes);

/// <summary>
/// Per group of a put: <c>applied</c>, <c>unchanged</c> (the stored value already was the put's) or
/// <c>conflict</c> (a value with a newer or equal device time is stored and stays); null for a group the
/// put did not carry.
/// </summary>
public sealed record ReadingStateResults(string? Position, string? Status, string? Statistics);
