using System.Text;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>Stops the start when no usable key is configured, naming the key to set.</summary>
internal sealed class DeviceTokenOptionsValidator : IValidateOptions<DeviceTokenOptions>
{
    public const int MinSigningKeyBytes = 32;

    public ValidateOptionsResult Validate(string? name, DeviceTokenOptions options)
    {
        if (!string.IsNullOrWhiteSpace(options.PublicKeyPem))
        {
            return DeviceTokenKeys.TryImportPublicKey(options.PublicKeyPem, out _, out _, out var error)
                ? ValidateOptionsResult.Success
                : ValidateOptionsResult.Fail($"Auth:PublicKeyPem is not a PEM RSA or EC public key: {error}");
        }

        if (string.IsNullOrEmpty(options.SigningKey))
        {
            return ValidateOptionsResult.Fail(
                "Auth:SigningKey (HS256, at least 32 bytes) or Auth:PublicKeyPem (RS256/ES256) must be set to validate device tokens.");
        }

        return Encoding.UTF8.GetByteCount(options.SigningKey) < MinSigningKeyBytes
            ? ValidateOptionsResult.Fail($"Auth:SigningKey must be at least {MinSigningKeyBytes} bytes (UTF-8) long.")
            : ValidateOptionsResult.Success;
    }
}
