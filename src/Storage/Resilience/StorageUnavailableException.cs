namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// The database could not serve the call within its budget (circuit open, timed out, connection
/// lost). REST answers 503 and gRPC UNAVAILABLE, both telling the device when to come back.
/// </summary>
public sealed class StorageUnavailableException(string message, TimeSpan retryAfter, Exception? inner = null)
    : Exception(message, inner)
{
    /// <summary>When the device should try again.</summary>
    public TimeSpan RetryAfter { get; } = retryAfter;
}
