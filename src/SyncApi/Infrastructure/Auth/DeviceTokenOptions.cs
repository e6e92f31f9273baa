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

    /// <summary>A PEM public key (RSA or EC P-256) that verifies RS256 or ES256 tokens; overrides <see cref="SigningKey"/> for validation.</summary>
    public string? PublicKeyPem { get; set; }

    [Required]
    public string Issuer { get; set; } = "kobo-sync";

    [Required]
    public string Audience { get; set; } = "kobo-devices";

    /// <summary>Tolerated difference between the issuer's and this server's clocks.</summary>
    [Range(0, 600)]
    public int ClockSkewSeconds { get; set; } = 30;
}
