namespace Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

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
    /// The origin that serves book files and covers (<see cref="KoboContentOrigin"/>): a book's download
    /// URL is <c>{ContentBaseUrl}/ebooks/{bookNo}.kepub.epub</c> or <c>.../ebooks/{bookNo}.epub</c>, as the
    /// catalogue's <c>book_files</c> states, and a device's cover request is redirected to
    /// <c>{ContentBaseUrl}/covers/{bookNo}.jpg</c>. Empty (and no <see cref="DemoContent"/>): entitlements
    /// carry no download URL and covers are not found; this service stores no book files.
    /// </summary>
    public string ContentBaseUrl { get; set; } = string.Empty;

    /// <summary>
    /// Serve the demo books' files and covers from this service, under <c>/demo-content</c>, and use it as
    /// the content origin when <see cref="ContentBaseUrl"/> is empty: a generated EPUB per demo book and a
    /// fixed cover, without authentication. Unset: on only for the demo run (the embedded server with
    /// <c>Demo:Seed</c>), so a production store never has these routes unless it sets this to true.
    /// </summary>
    public bool? DemoContent { get; set; }

    /// <summary>
    /// How many link look-ups (a secret not in the cache, read from the store) run at once on this
    /// instance. An unauthenticated caller can present any secret, so this is all the database work
    /// such callers can cause together.
    /// </summary>
    public int LinkLookupConcurrency { get; set; } = 4;

    /// <summary>
    /// How many link look-ups may wait for one of <see cref="LinkLookupConcurrency"/>; beyond it a look-up is refused at once (503).
    /// </summary>
    public int LinkLookupQueue { get; set; } = 16;

    /// <summary>How long a link look-up may take, its wait for a slot included; then it is answered 503.</summary>
    public int LinkLookupTimeoutMs { get; set; } = 2000;

    /// <summary>
    /// How many refused secrets (unknown or revoked links) one client address may present in a burst before it is answered 429.
    /// </summary>
    public int RefusedSecretsPerAddressBurst { get; set; } = 10;

    /// <summary>The rate at which an address's allowance of refused secrets comes back, per minute.</summary>
    public int RefusedSecretsPerAddressPerMinute { get; set; } = 30;

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
