using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>
/// A push's results, one per change in request order, and when the device sent its sync token, that token
/// again with the push as the device's last write (<see cref="SyncPosition.WrittenSeq"/>); null otherwise.
/// </summary>
public sealed record PushAnswer(IReadOnlyList<ChangeResult> Results, string? SyncToken);
