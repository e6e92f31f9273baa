using System.Globalization;
using System.Security.Claims;
using System.Text;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.Contracts.Tokens;

/// <summary>
/// Mints HS256 device tokens with a shared signing key, issuer and audience: the service's <c>token</c> command,
/// the device simulator and the tests. Production devices get their tokens from the account service.
/// </summary>
public sealed class DeviceTokenSigner(SymmetricSecurityKey key, string issuer, string audience)
{
    /// <summary>A signer with <paramref name="signingKey"/>'s UTF-8 bytes as the HMAC key.</summary>
    public DeviceTokenSigner(string signingKey, string issuer, string audience)
        : this(new SymmetricSecurityKey(Encoding.UTF8.GetBytes(signingKey)), issuer, audience)
    {
    }

    public string Mint(long userNo, string deviceId, TimeSpan lifetime, DateTimeOffset? now = null)
    {
        var issuedAt = (now ?? DateTimeOffset.UtcNow).UtcDateTime;
        return new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = issuer,
            Audience = audience,
            IssuedAt = issuedAt,
            NotBefore = issuedAt,
            Expires = issuedAt + lifetime,
            Subject = new ClaimsIdentity(
            [
                new Claim(DeviceTokenClaimNames.User, userNo.ToString(CultureInfo.InvariantCulture)),
                new Claim(DeviceTokenClaimNames.Device, deviceId),
            ]),
            SigningCredentials = new SigningCredentials(key, SecurityAlgorithms.HmacSha256),
        });
    }
}
