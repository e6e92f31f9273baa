namespace Kobo.Sync.Domain.Requests;

/// <summary>The sync rules a deployment may tune.</summary>
/// <param name="MaxClockSkew">A device time further than this ahead of server time is replaced by server time.</param>
/// <param name="MaxDevicesPerUser">The most devices the service keeps for one user; at most one fewer may be revoked at a time.</param>
/// <param name="RevocationLifetime">How long a revocation stays in force: by then every token it refuses has expired.</param>
public sealed record SyncSettings(TimeSpan MaxClockSkew, int MaxDevicesPerUser, TimeSpan RevocationLifetime)
{
    public const int DefaultMaxDevicesPerUser = 50;

    /// <summary>
    /// 1,000,000 live highlights: 50 times the heaviest real readers (about 20,000) and about 5 times the
    /// benchmark's heaviest user (203,550).
    /// </summary>
    public const long DefaultMaxHighlightsPerUser = 1_000_000;

    /// <summary>
    /// 256 MiB of text, notes and locations (UTF-8): the heaviest real reader's 20,000 highlights of a few
    /// hundred characters hold under 20 MB, and the benchmark's heaviest about 16 MB.
    /// </summary>
    public const long DefaultMaxHighlightBytesPerUser = 256L * 1024 * 1024;

    /// <summary>1,000 live collections: shelves people keep number in the tens; a bound, not a working size.</summary>
    /// <summary>Tombstones (deleted highlights kept until the purge) one user may have stored: as many as live highlights.</summary>
    public const long DefaultMaxTombstonesPerUser = 1_000_000;

    /// <summary>Collections one user may have stored, live and deleted (kept until the purge) together.</summary>
    public const int DefaultMaxStoredCollectionsPerUser = 2_000;

    /// <summary>Membership registers (books added or removed) one collection may keep.</summary>
    public const int DefaultMaxBookRegistersPerCollection = 10_000;

    public const int DefaultMaxCollectionsPerUser = 1_000;

    /// <summary>5,000 books in one collection: more than most readers' whole libraries.</summary>
    public const int DefaultMaxBooksPerCollection = 5_000;

    /// <summary>The most live collections one user may hold; a push past it is refused whole.</summary>
    public int MaxCollectionsPerUser { get; init; } = DefaultMaxCollectionsPerUser;

    public long MaxTombstonesPerUser { get; init; } = DefaultMaxTombstonesPerUser;

    public int MaxStoredCollectionsPerUser { get; init; } = DefaultMaxStoredCollectionsPerUser;

    public int MaxBookRegistersPerCollection { get; init; } = DefaultMaxBookRegistersPerCollection;

    /// <summary>The most books one collection may hold; a push past it is refused whole.</summary>
    public int MaxBooksPerCollection { get; init; } = DefaultMaxBooksPerCollection;

    /// <summary>The most live highlights one user may hold; a push past it is refused whole.</summary>
    public long MaxHighlightsPerUser { get; init; } = DefaultMaxHighlightsPerUser;

    /// <summary>The most bytes of text, notes and locations one user's live highlights may hold; a push past it is refused whole.</summary>
    public long MaxHighlightBytesPerUser { get; init; } = DefaultMaxHighlightBytesPerUser;
}
