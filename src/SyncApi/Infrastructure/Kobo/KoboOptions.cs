namespace Kobo.Sync.SyncApi.Infrastructure.Kobo;

/// <summary>Section <c>Kobo</c>: where the Kobo device protocol front says it lives, and where book files are.</summary>
public sealed class KoboOptions
{
    public const string SectionName = "Kobo";

    /// <summary>
    /// The service's public base URL (scheme, host, optional port and path prefix), from which a link's
    /// <c>apiEndpoint</c> and every URL the device is told (initialization) are built. Empty: taken
    /// from each request (its scheme and Host header), which production must not rely on: set it.
    /// </summary>
    public string PublicBaseUrl { get; set; } = string.Empty;

    /// <summary>
    /// The origin that serves book files: an entitlement's download URL is
    /// <c>{ContentBaseUrl}/ebooks/{bookNo}.epub</c>. Empty: entitlements carry no download URL (this
    /// service stores no book files), and the device lists the book without being able to download it.
    /// </summary>
    public string ContentBaseUrl { get; set; } = string.Empty;

    /// <summary>The configured public base, without a trailing slash; null when not set.</summary>
    public Uri? PublicBase => Absolute(PublicBaseUrl);

    /// <summary>The configured content origin, without a trailing slash; null when not set.</summary>
    public Uri? ContentBase => Absolute(ContentBaseUrl);

    internal static Uri? Absolute(string value) =>
        Uri.TryCreate(value.TrimEnd('/'), UriKind.Absolute, out var uri)
        && (uri.Scheme == Uri.UriSchemeHttp || uri.Scheme == Uri.UriSchemeHttps)
        && string.IsNullOrEmpty(uri.Query) && string.IsNullOrEmpty(uri.Fragment)
            ? uri
            : null;
}
