namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>What a scenario's devices do: one of the three hot device reads, or a device sync (push and pull).</summary>
public enum ReadKind
{
    /// <summary>First page of a user's highlights across all books, from the heaviest users.</summary>
    HighlightsByUser,

    /// <summary>First page of a user's highlights in one book, from the heaviest users.</summary>
    HighlightsByBook,

    /// <summary>One user by id, every user once.</summary>
    UserById,

    /// <summary>
    /// A device sync session: pull every page since the device's token, push a small batch of new highlights, pull again.
    /// </summary>
    SyncSession,

    /// <summary>A new device's first sync: every page of its user's changes, until <c>hasMore</c> is false.</summary>
    FirstSyncStorm,

    /// <summary>
    /// Live pull: devices wait for changes (REST long-poll, gRPC WatchChanges) while another device of
    /// the same user pushes; each sync is a push, and each delivery's wake latency is measured.
    /// </summary>
    Live,

    /// <summary>
    /// A fleet's day (the release gate): each sync a distinct device's scheduled sync, of the kind the
    /// scenario's <c>mix</c> draws: nothing new, an active reader's push and pull, a first sync, a catch-up after months.
    /// </summary>
    Day,
}
