namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The Kobo link scheme: a Kobo e-reader cannot carry a bearer token, so it is authenticated by the
/// secret in its <c>/kobo/{secret}/</c> path (<see cref="KoboLinkHandler"/>). On success the principal
/// is the one the device token scheme builds (<see cref="DeviceIdentity"/>) for the user and the link's
/// linking device, so every handler gets its <see cref="Domain.Requests.DeviceCaller"/> the same way.
/// </summary>
public static class KoboLinkAuthentication
{
    public const string Scheme = "KoboLink";

    /// <summary>The authorization policy of the <c>/kobo/{secret}</c> route group: authenticated by <see cref="Scheme"/>.</summary>
    public const string Policy = "KoboLink";

    /// <summary>
    /// Starts the admission partition of a link (<c>kobo:{user}/{device}/{hash prefix}</c>): a device's
    /// first sync is hundreds of pages back to back, so a link has a token bucket of its own
    /// (<c>Admission:PerKoboLinkRequestsPerSecond</c>), not its linking device's.
    /// </summary>
    public const string AdmissionPrefix = "kobo:";

    /// <summary>The route value holding the secret.</summary>
    public const string SecretRouteValue = "secret";
}
