using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// Kobo links as the store keeps them. Implemented by the storage adapter; only a secret's SHA-256
/// reaches it.
/// </summary>
public interface IKoboLinkStore
{
    /// <summary>
    /// Stores a link made by the user's device <paramref name="linkingDeviceId"/>, making that device known
    /// to the user's devices (so that revoking it revokes the link) within <paramref name="bounds"/>, and
    /// revokes the user's links beyond the live-link bounds. Refused when the linking device's revocation is at or after
    /// <paramref name="revokedFrom"/> (the asking token's iat less the clock skew): a revocation made on
    /// any instance and a link made on another agree, whichever the database sees first.
    /// </summary>
    Task<KoboLinkCreation> CreateAsync(
        UserNo user, string linkingDeviceId, byte[] secretHash, DeviceBounds bounds,
        DateTimeOffset? revokedFrom, CancellationToken cancellationToken);

    /// <summary>
    /// The key that tags link secrets (<see cref="KoboLinkSecrets"/>): one per store, the same for every
    /// instance, never changing. Read once; later calls cost nothing.
    /// </summary>
    ValueTask<byte[]> SecretKeyAsync(CancellationToken cancellationToken);

    /// <summary>The link whose secret hashes to <paramref name="secretHash"/>; null when there is none.</summary>
    Task<KoboLink?> LookUpAsync(byte[] secretHash, CancellationToken cancellationToken);

    /// <summary>The user's links, newest first (all of them: the bounds keep them few); null when the user does not exist.</summary>
    Task<IReadOnlyList<KoboLinkView>?> ListAsync(UserNo user, CancellationToken cancellationToken);

    /// <summary>
    /// Revokes the user's link <paramref name="linkId"/> (revoking a revoked link changes nothing).
    /// Returns its secret hash, or null when the user has no such link.
    /// </summary>
    Task<byte[]?> RevokeAsync(UserNo user, byte[] linkId, CancellationToken cancellationToken);

}
