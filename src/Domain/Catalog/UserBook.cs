using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Catalog;

/// <summary>
/// Ownership of a book by a user (a purchase or a free download).
/// Document id <c>usersbooks/users{userNo}-ebooks/{bookNo}</c>: one per pair, so a
/// repeated purchase event cannot create a second copy.
/// </summary>
public sealed class UserBook
{
    public required string Id { get; init; }

    public required string User { get; init; }

    public required string Book { get; init; }

    public required DateTimeOffset AcquiredAt { get; init; }

    public static string DocumentId(UserNo user, BookNo book) => $"usersbooks/users{user}-ebooks/{book}";
}
