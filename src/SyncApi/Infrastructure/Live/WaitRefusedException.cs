namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// A watch the instance would not keep: its waiter budget is full (the instance's, the user's, or the
/// device's share of it), live pull is off, or it is shutting down. gRPC ends the stream UNAVAILABLE
/// (RESOURCE_EXHAUSTED for the user's budget and the device's share) with <see cref="RetryAfter"/> as its pushback.
/// </summary>
public sealed class WaitRefusedException(WaitAdmission reason, TimeSpan retryAfter)
    : Exception(reason switch
    {
        WaitAdmission.DeviceFull => "This device already waits for changes as often as one device may on this instance; " +
            "pull again after the pushback.",
        WaitAdmission.UserFull => "Too many devices of this user wait for changes on this instance; pull again after the pushback.",
        WaitAdmission.Stopping => "The instance is shutting down; watch again from the last sync token.",
        _ => "This instance takes no more devices waiting for changes; pull again after the pushback.",
    })
{
    public WaitAdmission Reason { get; } = reason;

    public TimeSpan RetryAfter { get; } = retryAfter;
}
