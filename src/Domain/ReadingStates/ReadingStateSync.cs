using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>
/// Reading states, shared by REST, gRPC and the Kobo protocol: a device reads and puts the reading
/// state of a book its user owns. A put is validated (<see cref="ReadingStateValidation"/>), then
/// decided group by group by <see cref="ReadingStateRules"/> inside one store transaction; an applied
/// put reaches the user's other devices as a <c>readingState</c> change of the delta pull.
/// </summary>
public sealed class ReadingStateSync(IReadingStateStore store, SyncSettings settings, TimeProvider clock)
{
    /// <summary>The book's reading state; a book no device has written yet has no groups (<see cref="ReadingState.Empty"/>).</summary>
    public async Task<ReadingState> GetAsync(DeviceCaller caller, UserNo user, BookNo book, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var lookup = await store.GetAsync(user, book, cancellationToken).ConfigureAwait(false);
        Ensure(lookup.Access, user, book);
        return lookup.State ?? ReadingState.Empty(book);
    }

    /// <summary>
    /// Puts the groups <paramref name="put"/> carries. Each group is applied, unchanged or a conflict
    /// (a newer one is stored and stays); the answer carries those results and the state as stored after
    /// the put, so a stale device learns the newer state at once.
    /// </summary>
    public async Task<ReadingStatePutResult> PutAsync(
        DeviceCaller caller, UserNo user, BookNo book, PushedReadingState? put, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var valid = ReadingStateValidation.Check(put, clock.GetUtcNow(), settings.MaxClockSkew);
        ReadingStateDecision? decision = null;
        var lookup = await store.ApplyAsync(
            user, book, stored => decision = ReadingStateRules.Decide(book, stored, valid), cancellationToken).ConfigureAwait(false);
        Ensure(lookup.Access, user, book);
        return decision is null
            ? throw new InvalidOperationException("The store answered an owned book without deciding the put.")
            : new ReadingStatePutResult(decision.Results, decision.State);
    }

    private static void Ensure(BookAccess access, UserNo user, BookNo book)
    {
        switch (access)
        {
            case BookAccess.UnknownUser:
                throw ResourceNotFoundException.UnknownUser(user);
            case BookAccess.NotOwned:
                throw new ResourceNotFoundException(
                    $"User {user} does not own book {book}: a reading state is kept only for a book in the user's library.");
        }
    }
}

/// <summary>The answer to a put: each carried group's result, and the state as stored after the put.</summary>
public sealed record ReadingStatePutResult(ReadingStateResults Results, ReadingState State);
