using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs the Kobo link calls in their storage pipelines, as <see cref="ResilientSyncStore"/> runs sync's: the
/// reads on the primary are retried, and so are a revocation and touching the linking device (a replay
/// changes nothing); making a link is a plain write. The look-up that authenticates an e-reader
/// (<see cref="LookUpAsync"/>) stays outside the pipelines on purpose: a caller presenting a secret is not
/// authenticated yet, so its look-up has its own limits (the web host's <c>KoboLinkLookups</c>), and its
/// failures must not count against the circuit the devices' calls share.
/// </summary>
public sealed class ResilientKoboLinkStore(PostgresKoboLinkStore store, StoragePipelines pipelines) : IKoboLinkStore
{
    public Task<KoboLinkCreation> CreateAsync(
        UserNo user, string linkingDeviceId, byte[] secretHash, DeviceBounds bounds,
        DateTimeOffset? revokedFrom, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (store, user, linkingDeviceId, secretHash, bounds, revokedFrom),
            static (s, ct) => s.store.CreateAsync(s.user, s.linkingDeviceId, s.secretHash, s.bounds, s.revokedFrom, ct),
            cancellationToken);

    /// <summary>Outside the pipelines, as <see cref="LookUpAsync"/>: the look-ups read it first, once.</summary>
    public ValueTask<byte[]> SecretKeyAsync(CancellationToken cancellationToken) => store.SecretKeyAsync(cancellationToken);

    public Task<KoboLink?> LookUpAsync(byte[] secretHash, CancellationToken cancellationToken) =>
        DatabaseCancellation.RunAsync((store, secretHash), static (s, ct) => s.store.LookUpAsync(s.secretHash, ct), cancellationToken);

    public Task<IReadOnlyList<KoboLinkView>?> ListAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user),
            static (s, ct) => s.store.ListAsync(s.user, ct),
            cancellationToken);

    public Task<byte[]?> RevokeAsync(UserNo user, byte[] linkId, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, user, linkId),
            static (s, ct) => s.store.RevokeAsync(s.user, s.linkId, ct),
            cancellationToken);

}
