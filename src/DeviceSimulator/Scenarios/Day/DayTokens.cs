using System.Text;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Day;

/// <summary>
/// The sync tokens the devices of a day kept from their last sync, signed with the service's
/// <c>Paging:CursorKey</c> as the service signs them. The seed writes every row at change sequence 0,
/// so a device that synced before the run holds the service's own "after every change up to 0"
/// position in each stream (<see cref="SyncPosition"/>'s <c>With...Through</c>); a device back from a
/// drawer holds that for its library, reading states and collections, and the start for highlights.
/// Tokens the service returns are read back (<see cref="Resolve"/>) for the ledger's checks.
/// </summary>
public sealed class DayTokens(string cursorKey)
{
    private readonly SyncTokens _tokens = new(Encoding.UTF8.GetBytes(cursorKey));

    public static SyncPosition CaughtUp(long user) =>
        SyncPosition.Start.WithHighlightsThrough(new UserNo(user), 0)
            .WithEntitlementsThrough(0).WithReadingStatesThrough(0).WithCollectionsThrough(0);

    public static SyncPosition BackFromDrawer =>
        SyncPosition.Start.WithEntitlementsThrough(0).WithReadingStatesThrough(0).WithCollectionsThrough(0);

    public string Issue(long user, SyncPosition position) => _tokens.Issue(new UserNo(user), position);

    public SyncPosition Resolve(long user, string token) => _tokens.Resolve(new UserNo(user), token);
}
