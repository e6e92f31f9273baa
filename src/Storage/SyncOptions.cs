using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.Storage;

/// <summary>
/// Section <c>Sync</c>: conflict clock, tombstone retention and the purge job, devices and highlights per user, revocations, and live pull.
/// </summary>
public sealed class SyncOptions
{
    public const string SectionName = "Sync";

    /// <summary>A device time further ahead of server time than this is replaced by server time.</summary>
    [Range(0, 86_400, ErrorMessage = "Sync:MaxClockSkewSeconds must be from {1} to {2}.")]
    public int MaxClockSkewSeconds { get; set; } = 300;

    /// <summary>How long a tombstone is kept for devices to pull; then it is purged and older sync tokens get 410.</summary>
    [Range(1, 3_650, ErrorMessage = "Sync:TombstoneRetentionDays must be from {1} to {2}.")]
    public int TombstoneRetentionDays { get; set; } = 90;

    /// <summary>Pause between purge runs.</summary>
    [Range(1, 86_400, ErrorMessage = "Sync:PurgeIntervalSeconds must be from {1} to {2}.")]
    public int PurgeIntervalSeconds { get; set; } = 600;

    /// <summary>Tombstones deleted per purge transaction; small batches keep each transaction short.</summary>
    [Range(1, 100_000, ErrorMessage = "Sync:PurgeBatchSize must be from {1} to {2}.")]
    public int PurgeBatchSize { get; set; } = 1_000;

    /// <summary>
    /// The most devices kept for one user; a new device at the limit drops the least recently seen one
    /// not revoked, and at most one fewer may be revoked at a time.
    /// </summary>
    [Range(2, 10_000, ErrorMessage = "Sync:MaxDevicesPerUser must be from {1} to {2}.")]
    public int MaxDevicesPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxDevicesPerUser;

    /// <summary>
    /// The most live highlights one user may hold; a push that would add past it is refused whole (REST 409, gRPC FAILED_PRECONDITION).
    /// </summary>
    [Range(typeof(long), "1000", "1000000000", ErrorMessage = "Sync:MaxHighlightsPerUser must be from {1} to {2}.")]
    public long MaxHighlightsPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxHighlightsPerUser;

    /// <summary>The most bytes (UTF-8) of text, notes and locations one user's live highlights may hold; past it as above.</summary>
    [Range(typeof(long), "1048576", "1099511627776", ErrorMessage = "Sync:MaxHighlightBytesPerUser must be from {1} to {2}.")]
    public long MaxHighlightBytesPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxHighlightBytesPerUser;

    /// <summary>
    /// The most live collections one user may hold; a push that would add past it is refused whole (REST 409, gRPC FAILED_PRECONDITION).
    /// </summary>
    [Range(1, 100_000, ErrorMessage = "Sync:MaxCollectionsPerUser must be from {1} to {2}.")]
    public int MaxCollectionsPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxCollectionsPerUser;

    /// <summary>The most books one collection may hold; past it as above.</summary>
    [Range(1, 100_000, ErrorMessage = "Sync:MaxBooksPerCollection must be from {1} to {2}.")]
    public int MaxBooksPerCollection { get; set; } = Domain.Requests.SyncSettings.DefaultMaxBooksPerCollection;

    /// <summary>
    /// The most tombstones (deleted highlights, kept until the purge) one user may have stored; a push that
    /// would store new ones past it (deletes of keys never stored) is refused whole, 409 / FAILED_PRECONDITION.
    /// Deleting a live highlight always passes: its row becomes the tombstone.
    /// </summary>
    [Range(typeof(long), "1000", "1000000000", ErrorMessage = "Sync:MaxTombstonesPerUser must be from {1} to {2}.")]
    public long MaxTombstonesPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxTombstonesPerUser;

    /// <summary>
    /// The most collections one user may have stored, live and deleted (kept until the purge) together; past it as above.
    /// </summary>
    [Range(1, 1_000_000, ErrorMessage = "Sync:MaxStoredCollectionsPerUser must be from {1} to {2}.")]
    public int MaxStoredCollectionsPerUser { get; set; } = Domain.Requests.SyncSettings.DefaultMaxStoredCollectionsPerUser;

    /// <summary>
    /// The most membership registers (books added or removed, each kept so a stale add cannot undo a removal) one collection may keep; past
    /// it as above.
    /// </summary>
    [Range(1, 1_000_000, ErrorMessage = "Sync:MaxBookRegistersPerCollection must be from {1} to {2}.")]
    public int MaxBookRegistersPerCollection { get; set; } = Domain.Requests.SyncSettings.DefaultMaxBookRegistersPerCollection;

    /// <summary>How often each instance polls the store for devices revoked through other instances.</summary>
    [Range(1, 3_600, ErrorMessage = "Sync:RevocationRefreshSeconds must be from {1} to {2}.")]
    public int RevocationRefreshSeconds { get; set; } = 5;

    /// <summary>
    /// Live pull: devices may wait for changes (REST <c>wait</c>, gRPC <c>WatchChanges</c>); a commit wakes
    /// the instance's own waiting devices at once and the other instances' through PostgreSQL NOTIFY,
    /// sent after the commits, coalesced (<see cref="LiveSignalCoalesceMs"/>); each instance listens. Off:
    /// no NOTIFY, no listener, and every wait is answered at once, as over <see cref="MaxWaiters"/>.
    /// </summary>
    public bool LivePull { get; set; } = true;

    /// <summary>
    /// How long an instance gathers more commits before it tells the other instances of them, in one
    /// NOTIFY transaction (besides those that committed while the previous one was on its way): a
    /// longer wait sends fewer, larger notifications and wakes the other instances' devices that much later.
    /// </summary>
    [Range(0, 1_000, ErrorMessage = "Sync:LiveSignalCoalesceMs must be from {1} to {2}.")]
    public int LiveSignalCoalesceMs { get; set; } = 5;

    /// <summary>Devices that may wait for changes on this instance at once; past it a wait is answered at once.</summary>
    [Range(0, 1_000_000, ErrorMessage = "Sync:MaxWaiters must be from {1} to {2}.")]
    public int MaxWaiters { get; set; } = 20_000;

    /// <summary>Devices of one user that may wait on this instance at once; past it a wait is answered at once.</summary>
    [Range(1, 10_000, ErrorMessage = "Sync:MaxWaitersPerUser must be from {1} to {2}.")]
    public int MaxWaitersPerUser { get; set; } = 20;

    /// <summary>
    /// Waits one device (one token's device id) may hold at once, its REST waits and gRPC watches
    /// together, within its user's <see cref="MaxWaitersPerUser"/>; past it a wait is answered at once.
    /// Capped at one less than <see cref="MaxWaitersPerUser"/> (see <see cref="WaitersPerDevice"/>).
    /// </summary>
    [Range(1, 10_000, ErrorMessage = "Sync:MaxWaitersPerDevice must be from {1} to {2}.")]
    public int MaxWaitersPerDevice { get; set; } = 4;

    /// <summary>
    /// The device's share in force: <see cref="MaxWaitersPerDevice"/>, but always fewer than the user's
    /// places (when the user has more than one), so one device never holds all of them.
    /// </summary>
    public int WaitersPerDevice => Math.Min(MaxWaitersPerDevice, Math.Max(1, MaxWaitersPerUser - 1));

    /// <summary>
    /// When a device whose wait was refused (budget full, live pull off) should come back at the earliest;
    /// each refusal gets a random time from it to twice it.
    /// </summary>
    [Range(1, 3_600, ErrorMessage = "Sync:WaitRefusedRetryAfterSeconds must be from {1} to {2}.")]
    public int WaitRefusedRetryAfterSeconds { get; set; } = 30;

    /// <summary>
    /// A <c>WatchChanges</c> stream with nothing to send sends a heartbeat after this long, so that load
    /// balancers whose idle timeout ignores HTTP/2 pings (AWS ALB: 60 s by default) keep it open.
    /// </summary>
    [Range(1, 300, ErrorMessage = "Sync:WatchHeartbeatSeconds must be from {1} to {2}.")]
    public int WatchHeartbeatSeconds { get; set; } = 20;

    /// <summary>A <c>WatchChanges</c> stream ends (OK) after this long; the device opens a new one from its last token.</summary>
    [Range(10, 86_400, ErrorMessage = "Sync:WatchMaxSeconds must be from {1} to {2}.")]
    public int WatchMaxSeconds { get; set; } = 900;

    /// <summary>
    /// How often devices' pulls (position and time) are written, all of an instance's in one statement:
    /// a crash loses at most this long of them (the device list shows an older sync until the next pull).
    /// </summary>
    [Range(10, 60_000, ErrorMessage = "Sync:DevicePositionFlushMs must be from {1} to {2}.")]
    public int DevicePositionFlushMs { get; set; } = 1_000;

    /// <summary>
    /// Devices whose pulls an instance holds unwritten at most; past it a pull's record is dropped (and counted) until the next write.
    /// </summary>
    [Range(100, 10_000_000, ErrorMessage = "Sync:MaxPendingDevicePositions must be from {1} to {2}.")]
    public int MaxPendingDevicePositions { get; set; } = 200_000;
}
