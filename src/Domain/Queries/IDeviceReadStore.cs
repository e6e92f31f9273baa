using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Queries;

/// <summary>The reads devices make most, as the store must answer them. Implemented by the storage adapter.</summary>
public interface IDeviceReadStore
{
    /// <summary>The user, or null when there is no such user.</summary>
    Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken);

    /// <summary>
    /// At most <paramref name="limit"/> of <paramref name="user"/>'s highlights whose ids fall inside
    /// <paramref name="range"/>, in ordinal id order; null when the user does not exist (an existing
    /// user with no highlights there gets an empty list). One round trip.
    /// </summary>
    Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
        UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken);
}
