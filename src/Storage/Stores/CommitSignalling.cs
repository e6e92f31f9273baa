using Kobo.Sync.Domain.Ids;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// The one place a store tells live pull of a commit (<see cref="ICommitSignals"/>): after the commit, never
/// before it, and only when the transaction changed the user's sync data.
/// </summary>
public static class CommitSignalling
{
    /// <summary>
    /// Commits, then tells <paramref name="signals"/> when <paramref name="changedUpTo"/> (the user's last change sequence written) is set.
    /// </summary>
    public static async Task CommitAndSignalAsync(
        this NpgsqlTransaction transaction, ICommitSignals? signals, UserNo user, long? changedUpTo, CancellationToken cancellationToken)
    {
        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        signals.SignalCommitted(user, changedUpTo);
    }

    /// <summary>For a transaction already committed: tells <paramref name="signals"/> when <paramref name="changedUpTo"/> is set.</summary>
    public static void SignalCommitted(this ICommitSignals? signals, UserNo user, long? changedUpTo)
    {
        if (changedUpTo is { } seq)
        {
            signals?.Committed(user, seq);
        }
    }
}

/// <summary>Tells <paramref name="first"/> of each commit, then <paramref name="second"/>.</summary>
public sealed class CommitSignalsInOrder(ICommitSignals first, ICommitSignals second) : ICommitSignals
{
    public void Committed(UserNo user, long seq)
    {
        first.Committed(user, seq);
        second.Committed(user, seq);
    }
}
