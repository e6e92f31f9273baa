using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Contracts.Tokens;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>The validation parameters built once from <see cref="DeviceTokenOptions"/>, and the development signer.</summary>
public sealed class DeviceTokenKeys
{
    public DeviceTokenKeys(IOptions<DeviceTokenOptions> options)
    {
        var o = options.Value;
        SecurityKey key;
        string[] algorithms;
        if (!string.IsNullOrWhiteSpace(o.PublicKeyPem))
        {
            if (!TryImportPublicKey(o.PublicKeyPem, out key, out algorithms, out var error))
            {
                throw new OptionsValidationException(
                    DeviceTokenOptions.SectionName, typeof(DeviceTokenOptions), [$"Auth:PublicKeyPem: {error}"]);
            }
        }
        else
        {
            SigningKey = new SymmetricSecurityKey(Encoding.UTF8.GetBytes(o.SigningKey!));
            key = SigningKey;
            algorithms = [SecurityAlgorithms.HmacSha256];
        }

        Reader = SigningKey is null
            ? null
            : new Hs256DeviceTokenReader(SigningKey.Key, o.Issuer, o.Audience, TimeSpan.FromSeconds(o.ClockSkewSeconds));
        _signer = SigningKey is null ? null : new DeviceTokenSigner(SigningKey, o.Issuer, o.Audience);
        Issuer = o.Issuer;
        Audience = o.Audience;
        MaxLifetime = o.MaxTokenLifetime;
        Validation = new TokenValidationParameters
        {
            ValidIssuer = o.Issuer,
            ValidAudience = o.Audience,
            IssuerSigningKey = key,
            ValidAlgorithms = algorithms,
            ValidateIssuer = true,
            ValidateAudience = true,
            ValidateLifetime = true,
            RequireExpirationTime = true,
            RequireSignedTokens = true,
            ValidateIssuerSigningKey = true,
            ClockSkew = TimeSpan.FromSeconds(o.ClockSkewSeconds),
            // Claims keep their JWT names (sub, did): no mapping to long WS-* URIs.
            NameClaimType = DeviceTokenClaimNames.User,
        };
    }

    private readonly DeviceTokenSigner? _signer;

    public TokenValidationParameters Validation { get; }

    /// <summary>The minter of tokens with the configured HS256 key: for development, tests and load runs.</summary>
    public DeviceTokenSigner Signer =>
        _signer ?? throw new InvalidOperationException("Tokens can be minted only with Auth:SigningKey (HS256) configured.");

    /// <summary>The HS256 key, when one is configured; only it can mint tokens here.</summary>
    public SymmetricSecurityKey? SigningKey { get; }

    /// <summary>The reader of the issuer's own HS256 token shape, when an HS256 key is configured.</summary>
    internal Hs256DeviceTokenReader? Reader { get; }

    public string Issuer { get; }

    public string Audience { get; }

    /// <summary>The longest <c>exp</c> - <c>iat</c> a token may have (<c>Auth:MaxTokenLifetimeHours</c>).</summary>
    public TimeSpan MaxLifetime { get; }

    /// <summary>
    /// An RSA (RS256) or EC P-256 (ES256) public key from PEM text; false with the reason when the
    /// text is neither. The options validator calls this too, so a bad key stops the start.
    /// </summary>
    internal static bool TryImportPublicKey(string pem, out SecurityKey key, out string[] algorithms, out string error)
    {
        var rsa = RSA.Create();
        try
        {
            rsa.ImportFromPem(pem);
            (key, algorithms, error) = (new RsaSecurityKey(rsa), [SecurityAlgorithms.RsaSha256], string.Empty);
            return true;
        }
        catch (Exception ex) when (ex is ArgumentException or CryptographicException)
        {
            rsa.Dispose();
        }

        var ec = ECDsa.Create();
        try
        {
            ec.ImportFromPem(pem);
            (key, algorithms, error) = (new ECDsaSecurityKey(ec), [SecurityAlgorithms.EcdsaSha256], string.Empty);
            return true;
        }
        catch (Exception ex) when (ex is ArgumentException or CryptographicException)
        {
            ec.Dispose();
            (key, algorithms, error) = (null!, [], ex.Message);
            return false;
        }
    }
}
