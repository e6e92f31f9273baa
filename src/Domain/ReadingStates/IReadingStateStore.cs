using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>The reading states as the store must provide them. Implemented by the storage adapter.</summary>
public interface IReadingStateStore
{
    /// <summary>The stored state of the book (null when none), if the user exists and owns the book.</summary>
    Task<ReadingStateLookup> GetAsync(UserNo user, BookNo book, CancellationToken cancellationToken);

    /// <summary>
    /// One write transaction for one user: takes the user's change sequence (serialising the user's
    /// writes, as a highlight push does), checks that the user owns the book, loads and locks its stored
    /// state (null when none), lets <paramref name="decide"/> choose, and stores the decided state with a
    /// fresh sequence number when <see cref="ReadingStateDecision.Writes"/> (notifying live pull).
    /// <see cref="ReadingStateLookup.State"/> is the state as stored before the decision.
    /// </summary>
    Task<ReadingStateLookup> ApplyAsync(
        UserNo user, BookNo book, Func<ReadingState?, ReadingStateDecision> decide, CancellationToken cancellationToken);
}

/// <summary>Whether the user exists and owns the book; <see cref="State"/> only when it does.</summary>
public sealed record ReadingStateLookup(BookAccess Access, ReadingState? State)
{
    public static ReadingStateLookup UnknownUser { get; } = new(BookAccess.UnknownUser, null);

    public static ReadingStateLookup NotOwned { get; } = new(BookAccess.NotOwned, null);
}

/// <summary>What a user may do with a book's reading state: it needs the user to exist and to own the book (not removed).</summary>
public enum BookAccess
{
    UnknownUser,
    NotOwned,
    Owned,
}
