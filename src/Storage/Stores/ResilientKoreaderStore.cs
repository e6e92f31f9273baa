using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// Runs KOReader's calls in their storage pipelines, as <see cref="ResilientKoboLinkStore"/> runs the Kobo
/// links': reads on the primary are retried, and so are a revocation and a kept document's upsert (a replay
/// stores the same row); making a login and a write to a book's reading state are plain writes. The look-up
/// that authenticates a KOReader device stays outside the pipelines, with its own limits
/// (the web host's <c>KoreaderLogins</c>), as a Kobo link's look-up does.
/// </summary>
public sealed class ResilientKoreaderStore(PostgresKoreaderStore store, StoragePipelines pipelines) : IKoreaderStore
{
    public Task<KoreaderCredentialOutcome> CreateCredentialAsync(
        UserNo user, string linkingDeviceId, string username, string keyHash, DeviceBounds bounds, DateTimeOffset? revokedFrom,
        CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (store, user, linkingDeviceId, username, keyHash, bounds, revokedFrom),
            static (s, ct) => s.store.CreateCredentialAsync(s.user, s.linkingDeviceId, s.username, s.keyHash, s.bounds, s.revokedFrom, ct),
            cancellationToken);

    public Task<KoreaderCredential?> LookUpCredentialAsync(string username, CancellationToken cancellationToken) =>
        DatabaseCancellation.RunAsync(
            (store, username), static (s, ct) => s.store.LookUpCredentialAsync(s.username, ct), cancellationToken);

    public Task<IReadOnlyList<KoreaderCredentialView>?> ListCredentialsAsync(UserNo user, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user),
            static (s, ct) => s.store.ListCredentialsAsync(s.user, ct),
            cancellationToken);

    public Task<bool> RevokeCredentialAsync(UserNo user, string username, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, user, username),
            static (s, ct) => s.store.RevokeCredentialAsync(s.user, s.username, ct),
            cancellationToken);

    public Task<KoreaderResolution> ResolveAsync(UserNo user, IReadOnlyList<string> digests, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.PrimaryRead, (store, user, digests),
            static (s, ct) => s.store.ResolveAsync(s.user, s.digests, ct),
            cancellationToken);

    public Task<bool> ApplyToBookAsync(
        UserNo user, BookNo book, Func<ReadingState?, KoreaderMark?, KoreaderBookDecision> decide, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.Write, (store, user, book, decide),
            static (s, ct) => s.store.ApplyToBookAsync(s.user, s.book, s.decide, ct),
            cancellationToken);

    public Task<DateTimeOffset> StoreDocumentAsync(
        UserNo user, string document, KoreaderPut put, IReadOnlyList<string> aliases,
        int maxDocuments, CancellationToken cancellationToken) =>
        pipelines.RunAsync(
            StoragePipelines.IdempotentWrite, (store, user, document, put, aliases, maxDocuments),
            static (s, ct) => s.store.StoreDocumentAsync(s.user, s.document, s.put, s.aliases, s.maxDocuments, ct),
            cancellationToken);
}
