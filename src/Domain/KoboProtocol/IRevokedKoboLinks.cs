namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// Told at once when a Kobo link is revoked (by its user, or to keep the user's links within their
/// bounds), so that this instance refuses its secret from the next request on (other instances learn it
/// from the store).
/// </summary>
public interface IRevokedKoboLinks
{
    void Revoke(byte[] secretHash, DateTimeOffset revokedAt);
}
