namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// How one attempt of a sync went, as the device sees it: done, or failed and worth retrying (with
/// the server's own <c>Retry-After</c> when it sent one), or failed for good.
/// </summary>
public readonly record struct SyncAttempt(bool Ok, bool Retryable, string Status, TimeSpan? RetryAfter = null)
{
    public static SyncAttempt Success(string status = "ok") => new(true, false, status);

    public static SyncAttempt Transient(string status, TimeSpan? retryAfter = null) => new(false, true, status, retryAfter);

    public static SyncAttempt Permanent(string status) => new(false, false, status);
}
