using System.Security.Claims;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>Mints HS256 device tokens with the configured signing key: for development, tests and load runs.</summary>
public static class DevelopmentTokens
{
    public static string Mint(DeviceTokenKeys keys, long userNo, string deviceId, TimeSpan lifetime, DateTimeOffset? now = null)
    {
        var key = keys.SigningKey
            ?? throw new InvalidOperationException("Tokens can be minted only with Auth:SigningKey (HS256) configured.");
        var issuedAt = (now ?? DateTimeOffset.UtcNow).UtcDateTime;
        return new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = keys.Issuer,
            Audience = keys.Audience,
            IssuedAt = issuedAt,
            NotBefore = issuedAt,
            Expires = issuedAt + lifetime,
            Subject = new ClaimsIdentity(
            [
                new Claim(DeviceAuthentication.UserClaim, userNo.ToString(System.Globalization.CultureInfo.InvariantCulture)),
                new Claim(DeviceAuthentication.DeviceClaim, deviceId),
            ]),
            SigningCredentials = new SigningCredentials(key, SecurityAlgorithms.HmacSha256),
        });
    }
}
