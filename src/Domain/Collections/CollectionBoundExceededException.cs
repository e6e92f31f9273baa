using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// A push that would take the user past the live collections the service keeps for one user, or a
/// collection past the books it may hold (REST 409, gRPC FAILED_PRECONDITION). The whole push is refused
/// and nothing of it stored, as a push past the highlight quota is: the bound is the user's state, not a
/// fault of one operation. <see cref="Setting"/> names the bound.
/// </summary>
public sealed class CollectionBoundExceededException(string setting, string message) : RequestRejectedException(message)
{
    public const string CollectionsSetting = "Sync:MaxCollectionsPerUser";
    public const string BooksSetting = "Sync:MaxBooksPerCollection";

    public string Setting { get; } = setting;

    public static CollectionBoundExceededException TooManyCollections(int after, int max) => new(
        CollectionsSetting,
        $"This push would leave the user with {after} collections; the service keeps at most {max} per user ({CollectionsSetting}). " +
        "Nothing of it was stored: delete collections first.");

    public static CollectionBoundExceededException TooManyBooks(Guid id, int after, int max) => new(
        BooksSetting,
        $"This push would leave collection {CollectionValidation.Format(id)} with {after} books; a collection holds at most {max} " +
        $"({BooksSetting}). Nothing of it was stored.");
}
