namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>Whether a device may wait; why not otherwise.</summary>
public enum WaitAdmission
{
    Admitted,

    /// <summary><c>Sync:MaxWaiters</c> devices already wait on this instance.</summary>
    InstanceFull,

    /// <summary><c>Sync:MaxWaitersPerUser</c> devices of this user already wait on this instance.</summary>
    UserFull,

    /// <summary>The device already holds its share of its user's places (<c>Sync:MaxWaitersPerDevice</c>).</summary>
    DeviceFull,

    /// <summary>The service is shutting down.</summary>
    Stopping,
}
