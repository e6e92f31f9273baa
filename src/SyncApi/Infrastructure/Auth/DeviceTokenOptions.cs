using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// How device tokens are checked (section <c>Auth</c>). Either a shared HS256 key
/// (<see cref="SigningKey"/>, development and single-party deployments) or an asymmetric public
/// key (<see cref="PublicKeyPem"/>, RS256 or ES256, production: the token issuer keeps the private key).
/// </summary>
public sealed class DeviceTokenOptions
{
    public const string SectionName = "Auth";

    /// <summary>HS256 key; the key bytes are the UTF-8 bytes of this string, at least 32 of them.</summary>
    public string? SigningKey { get; set; }

    /// <summary>
    /// A PEM public key (RSA or EC P-256) that verifies RS256 or ES256 tokens; overrides <see cref="SigningKey"/> for validation.
    /// </summary>
    public string? PublicKeyPem { get; set; }

    [Required(ErrorMessage = "Auth:Issuer must be set.")]
    public string Issuer { get; set; } = "kobo-sync";

    [Required(ErrorMessage = "Auth:Audience must be set.")]
    public string Audience { get; set; } = "kobo-devices";

    /// <summary>Tolerated difference between the issuer's and this server's clocks.</summary>
    [Range(0, 600, ErrorMessage = "Auth:ClockSkewSeconds must be from {1} to {2}.")]
    public int ClockSkewSeconds { get; set; } = 30;

    /// <summary>
    /// The longest a token may live (<c>exp</c> - <c>iat</c>); a longer one is refused. It bounds how
    /// long a revocation must be kept: after <see cref="RevocationLifetime"/> every token it refuses has expired.
    /// </summary>
    [Range(1, 8_760, ErrorMessage = "Auth:MaxTokenLifetimeHours must be from {1} to {2}.")]
    public int MaxTokenLifetimeHours { get; set; } = 720;

    public TimeSpan MaxTokenLifetime => TimeSpan.FromHours(MaxTokenLifetimeHours);

    /// <summary>
    /// How long a revocation is kept: a token it refuses was issued at most <see cref="ClockSkewSeconds"/>
    /// after it (<see cref="DeviceRevocationList"/>), lives at most <see cref="MaxTokenLifetime"/> and is
    /// accepted at most <see cref="ClockSkewSeconds"/> past its expiry.
    /// </summary>
    public TimeSpan RevocationLifetime => MaxTokenLifetime + TimeSpan.FromSeconds(2 * ClockSkewSeconds);
}
