namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>How a seed writes: parallel writers, users per committed chunk, and where the keys are built.</summary>
public sealed record SeedOptions
{
    /// <summary>Users per chunk: one transaction each, so it bounds the memory a writer holds and what an interruption loses.</summary>
    public const int DefaultChunkUsers = 20_000;

    public int Writers { get; init; } = 1;

    /// <summary>Replace the users, books, ownerships and highlights already there (and any interrupted seed).</summary>
    public bool Truncate { get; init; }

    public int ChunkUsers { get; init; } = DefaultChunkUsers;

    /// <summary>
    /// Keep the keys and indexes while the rows are loaded instead of dropping them before and
    /// building them after: slower (each row updates every B-tree), kept to measure the difference.
    /// </summary>
    public bool KeysDuringLoad { get; init; }
}
