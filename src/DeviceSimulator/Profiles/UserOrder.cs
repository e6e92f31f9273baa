namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>The order user-by-id visits the users in: every user once either way.</summary>
public enum UserOrder
{
    /// <summary>1, 2, 3, ...: neighbours share a page, so after the first read of a page the next ones hit the cache.</summary>
    InOrder,

    /// <summary>
    /// A fixed permutation of the users that puts consecutive reads far apart, so on data larger than
    /// memory most reads miss the cache, as the benchmark's "every user once" did.
    /// </summary>
    Shuffled,
}
