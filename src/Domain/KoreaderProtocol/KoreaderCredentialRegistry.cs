using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>Logins revoked on this instance, forgotten by its cache at once.</summary>
public interface IRevokedKoreaderLogins
{
    void Revoke(string username);
}

/// <summary>
/// A user's KOReader logins, as their devices manage them over REST, like Kobo links: make one (a user
/// name and a password, shown once), list them, revoke one. A login is bound to the user and to the asking
/// device: revoking that device refuses the login from then on. Only a slow hash of the key KOReader sends
/// is stored (<see cref="KoreaderKeys"/>).
/// </summary>
public sealed class KoreaderCredentialRegistry(
    IKoreaderStore store, IRevokedKoreaderLogins revoked, IRevokedDevices revokedDevices, SyncSettings settings, TimeProvider clock)
{
    public const string UsernameField = "username";

    /// <summary>A new login for the caller's device, or null when the caller's token is revoked.</summary>
    public async Task<KoreaderLogin?> CreateAsync(
        DeviceCaller caller, DateTimeOffset issuedAt, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var password = KoreaderKeys.NewPassword();
        var username = $"u{user}-{KoreaderKeys.NewPassword()[..8]}";
        var bounds = DeviceBounds.Now(settings.MaxDevicesPerUser, settings.RevocationLifetime, clock);
        var outcome = await store.CreateCredentialAsync(
            user, caller.DeviceId, username, KoreaderKeys.Hash(KoreaderKeys.KeyOf(password)), bounds,
            issuedAt - revokedDevices.ClockSkew, cancellationToken).ConfigureAwait(false);
        return outcome switch
        {
            KoreaderCredentialOutcome.Created => new KoreaderLogin(username, password),
            KoreaderCredentialOutcome.LinkingDeviceRevoked => null,
            _ => throw ResourceNotFoundException.UnknownUser(user),
        };
    }

    /// <summary>The user's logins, newest first, live and revoked.</summary>
    public async Task<IReadOnlyList<KoreaderCredentialView>> ListAsync(
        DeviceCaller caller, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        return await store.ListCredentialsAsync(user, cancellationToken).ConfigureAwait(false)
            ?? throw ResourceNotFoundException.UnknownUser(user);
    }

    /// <summary>Revokes the user's login <paramref name="username"/>; revoking a revoked login changes nothing.</summary>
    public async Task RevokeAsync(DeviceCaller caller, UserNo user, string username, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        if (username.Length > 64)
        {
            throw new InvalidRequestException(UsernameField, "A KOReader user name has at most 64 characters.");
        }

        if (!await store.RevokeCredentialAsync(user, username, cancellationToken).ConfigureAwait(false))
        {
            throw new ResourceNotFoundException($"User {user} has no KOReader login '{username}'.");
        }

        revoked.Revoke(username);
    }
}
