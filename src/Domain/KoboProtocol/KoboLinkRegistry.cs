using System.Globalization;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// A user's Kobo links, as their devices manage them over REST and gRPC alike: make one, list them,
/// revoke one. The link is bound to the user and to the asking device: revoking that device revokes the
/// link for good. A link revoked here (or replaced beyond the bounds) is refused on this instance at once
/// (<see cref="IRevokedKoboLinks"/>); the other instances learn it from the store.
/// </summary>
public sealed class KoboLinkRegistry(
    IKoboLinkStore store, IRevokedKoboLinks revokedLinks, IRevokedDevices revokedDevices, SyncSettings settings, TimeProvider clock)
{
    /// <summary>A link id: <see cref="IdBytes"/> bytes in hex, the first bytes of its secret hash's SHA-256.</summary>
    public const int IdBytes = 8;

    public const string IdField = "linkId";

    /// <summary>
    /// A new link with the caller's own device as its linking device: its secret, or null when the caller's token is revoked
    /// (its device revoked at or after the token's issue time, clock skew included), which the store
    /// checks under the same lock a revocation takes.
    /// </summary>
    public async Task<string?> CreateAsync(DeviceCaller caller, DateTimeOffset issuedAt, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var secret = KoboLinkSecrets.New(await store.SecretKeyAsync(cancellationToken).ConfigureAwait(false));
        var bounds = DeviceBounds.Now(settings.MaxDevicesPerUser, settings.RevocationLifetime, clock);
        var created = await store.CreateAsync(
            user, linkingDeviceId: caller.DeviceId, KoboLinkSecrets.Hash(secret), bounds,
            issuedAt - revokedDevices.ClockSkew, cancellationToken).ConfigureAwait(false);
        Forget(created.Revoked);
        return created.Outcome switch
        {
            KoboLinkOutcome.Created => secret,
            KoboLinkOutcome.LinkingDeviceRevoked => null,
            _ => throw ResourceNotFoundException.UnknownUser(user),
        };
    }

    /// <summary>The user's links, newest first: all of them (the bounds keep them to one page).</summary>
    public async Task<IReadOnlyList<KoboLinkView>> ListAsync(DeviceCaller caller, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        return await store.ListAsync(user, cancellationToken).ConfigureAwait(false) ?? throw ResourceNotFoundException.UnknownUser(user);
    }

    /// <summary>Revokes the user's link <paramref name="linkId"/>; revoking a revoked link changes nothing.</summary>
    public async Task RevokeAsync(DeviceCaller caller, UserNo user, string linkId, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var id = ParseId(linkId);
        var hash = await store.RevokeAsync(user, id, cancellationToken).ConfigureAwait(false)
            ?? throw new ResourceNotFoundException($"User {user} has no Kobo link '{linkId}'.");
        Forget([hash]);
    }

    private void Forget(IReadOnlyList<byte[]> hashes)
    {
        var now = clock.GetUtcNow();
        foreach (var hash in hashes)
        {
            revokedLinks.Revoke(hash, now);
        }
    }

    private static byte[] ParseId(string linkId)
    {
        if (linkId.Length != IdBytes * 2 || !linkId.All(char.IsAsciiHexDigit))
        {
            throw new InvalidRequestException(
                IdField, string.Create(CultureInfo.InvariantCulture, $"A Kobo link id is {IdBytes * 2} hexadecimal characters."));
        }

        return Convert.FromHexString(linkId);
    }
}
