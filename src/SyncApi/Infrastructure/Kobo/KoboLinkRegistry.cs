using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Storage;

namespace Kobo.Sync.SyncApi.Infrastructure.Kobo;

/// <summary>
/// A user's Kobo links, as their devices manage them: make one. A link replaced beyond the bounds is
/// dropped from this instance's cache at once; the other instances drop it within <c>Sync:RevocationRefreshSeconds</c>.
/// </summary>
internal sealed class KoboLinkRegistry(
    KoboLinkStore store, KoboLinkCache cache, DeviceRevocationList revocations, SyncSettings settings, TimeProvider clock)
{
    /// <summary>
    /// A new link for the caller's own device: its secret, or null when the caller's token is revoked
    /// (its device revoked at or after the token's issue time, clock skew included), which the store
    /// checks under the same lock a revocation takes.
    /// </summary>
    public async Task<string?> CreateAsync(DeviceCaller caller, DateTimeOffset issuedAt, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var secret = KoboLinkSecrets.New();
        var bounds = new DeviceBounds(settings.MaxDevicesPerUser, clock.GetUtcNow() - settings.RevocationLifetime);
        var created = await store.CreateAsync(
            user, caller.DeviceId, KoboLinkSecrets.Hash(secret), bounds, issuedAt - revocations.ClockSkew, cancellationToken);
        Forget(created.Revoked);
        return created.Outcome switch
        {
            KoboLinkOutcome.Created => secret,
            KoboLinkOutcome.DeviceRevoked => null,
            _ => throw new ResourceNotFoundException($"User {user} does not exist."),
        };
    }

    private void Forget(IReadOnlyList<byte[]> hashes)
    {
        var now = clock.GetUtcNow();
        foreach (var hash in hashes)
        {
            cache.Revoke(Convert.ToHexString(hash), now);
        }
    }
}
