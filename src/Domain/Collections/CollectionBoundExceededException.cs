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
    public const string StoredSetting = "Sync:MaxStoredCollectionsPerUser";
    public const string RegistersSetting = "Sync:MaxBookRegistersPerCollection";

    public string Setting { get; } = setting;

    public static CollectionBoundExceededException TooManyCollections(int after, int max) => new(
        CollectionsSetting,
        $"This push would leave the user with {after} collections; the service keeps at most {max} per user ({CollectionsSetting}). " +
        "Nothing of it was stored: delete collections first.");

    public static CollectionBoundExceededException TooManyStored(int after, int max) => new(
        StoredSetting,
        $"This push would leave the user with {after} collections stored, live and deleted (a deleted one is kept until the purge); " +
        $"the service keeps at most {max} per user ({StoredSetting}). Nothing of it was stored.");

    public static CollectionBoundExceededException TooManyRegisters(Guid id, int after, int max) => new(
        RegistersSetting,
        $"This push would leave collection {CollectionValidation.Format(id)} with {after} books added or removed (each kept so that " +
        $"an older add cannot undo a removal); a collection keeps at most {max} ({RegistersSetting}). Nothing of it was stored.");

    public static CollectionBoundExceededException TooManyBooks(Guid id, int after, int max) => new(
        BooksSetting,
        $"This push would leave collection {CollectionValidation.Format(id)} with {after} books; a collection holds at most {max} " +
        $"({BooksSetting}). Nothing of it was stored.");
}
