namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// A held live pull whose device token expired, or whose device was revoked, while it waited: REST
/// answers 401, as it would the device's next request.
/// </summary>
public sealed class DeviceTokenLapsedException()
    : Exception("The device's token has expired or the device was revoked while the pull waited; pull again with a valid token.");
