using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>KOReader logins and progress as the store keeps them. Implemented by the storage adapter.</summary>
public interface IKoreaderStore
{
    /// <summary>
    /// Stores a login made by the user's device <paramref name="linkingDeviceId"/> (made known to the user's devices within
    /// <paramref name="bounds"/>), revoking the user's logins beyond the bounds. Refused as a Kobo link is when
    /// that device's revocation is at or after <paramref name="revokedFrom"/>.
    /// </summary>
    Task<KoreaderCredentialOutcome> CreateCredentialAsync(
        UserNo user, string linkingDeviceId, string username, string keyHash,
        DeviceBounds bounds, DateTimeOffset? revokedFrom, CancellationToken cancellationToken);

    /// <summary>The login named <paramref name="username"/>; null when there is none.</summary>
    Task<KoreaderCredential?> LookUpCredentialAsync(string username, CancellationToken cancellationToken);

    /// <summary>The user's logins, newest first; null when the user does not exist.</summary>
    Task<IReadOnlyList<KoreaderCredentialView>?> ListCredentialsAsync(UserNo user, CancellationToken cancellationToken);

    /// <summary>Revokes the user's login <paramref name="username"/>; false when the user has no such login.</summary>
    Task<bool> RevokeCredentialAsync(UserNo user, string username, CancellationToken cancellationToken);

    /// <summary>
    /// The first of <paramref name="digests"/> (in their order) that is a KOReader digest of a book the user
    /// owns, with its reading state; else the first that names (or aliases) a document kept for the user;
    /// neither when none does.
    /// </summary>
    Task<KoreaderResolution> ResolveAsync(UserNo user, IReadOnlyList<string> digests, CancellationToken cancellationToken);

    /// <summary>
    /// One write transaction on the book's reading state, as <see cref="IReadingStateStore.ApplyAsync"/>: takes the
    /// user's change sequence, loads the state and KOReader's part under it, lets <paramref name="decide"/> choose,
    /// stores the decided state and <see cref="KoreaderBookDecision.Mark"/> (notifying live pull). False when
    /// the user no longer owns the book.
    /// </summary>
    Task<bool> ApplyToBookAsync(
        UserNo user, BookNo book, Func<ReadingState?, KoreaderMark?, KoreaderBookDecision> decide, CancellationToken cancellationToken);

    /// <summary>
    /// Stores a document kept for KOReader alone, replacing the user's least recently written beyond <paramref name="maxDocuments"/>.
    /// </summary>
    Task<DateTimeOffset> StoreDocumentAsync(
        UserNo user, string document, KoreaderPut put, IReadOnlyList<string> aliases,
        int maxDocuments, CancellationToken cancellationToken);
}

/// <summary>What a KOReader write to a book came to: the state to store (null: nothing is written) and KOReader's part beside it.</summary>
public sealed record KoreaderBookDecision(ReadingState? State, KoreaderMark? Mark, string Result);

/// <summary>Where a device's document resolved: a book the user owns, else a document kept for KOReader alone, else neither.</summary>
public sealed record KoreaderResolution(KoreaderBookRecord? Book, KoreaderDocumentRecord? Document)
{
    public static KoreaderResolution None { get; } = new(null, null);
}
