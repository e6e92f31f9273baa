namespace Kobo.Sync.SyncApi.Infrastructure.Kobo;

/// <summary>The absolute URLs the Kobo front hands out, from <c>Kobo:PublicBaseUrl</c> or, when it is not set, the request.</summary>
public static class KoboUrls
{
    /// <summary>
    /// The service's public base without a trailing slash. Without <c>Kobo:PublicBaseUrl</c> it is the
    /// request's scheme, Host header and path base: right on a developer's machine, but behind a proxy
    /// or with a client that sends another name it is whatever the request says.
    /// </summary>
    public static string Base(KoboOptions options, HttpRequest request) =>
        options.PublicBase is { } configured
            ? configured.GetLeftPart(UriPartial.Path).TrimEnd('/')
            : string.Concat(request.Scheme, "://", request.Host.ToUriComponent(), request.PathBase.ToUriComponent());

    /// <summary>The device's own root, <c>{base}/kobo/{secret}</c>, for the secret of the current request.</summary>
    public static string DeviceRoot(KoboOptions options, HttpRequest request, string secret) =>
        Base(options, request) + "/kobo/" + secret;
}
