using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Storage;

/// <summary>
/// Told, after the commit, of every transaction that changed a user's sync data, never of one that
/// rolled back: live pull's <c>ChangeSignals</c> wakes this instance's waiting devices at once and tells
/// the other instances. It must not block: the push's answer waits on it.
/// </summary>
public interface ICommitSignals
{
    /// <summary>The user's changes up to <paramref name="seq"/> (its change sequence) are committed.</summary>
    void Committed(UserNo user, long seq);
}
