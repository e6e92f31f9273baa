namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of a user's ownership of books (<c>users_books</c>): the grants and removals, each under
/// the user's change sequence, and the keyset reads of ownership changes that device sync and library sync share.
/// </summary>
public static class OwnershipQueries
{
    /// <summary>
    /// The user's ownership rows (<c>ub</c>), each joined to its book (<c>b</c>, null columns when the catalogue lacks it).
    /// </summary>
    public const string OwnedBooks = """
        FROM users_books ub
        LEFT JOIN books b ON b.book_no = ub.book_no
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit: a keyset range of the
    /// (user_no, seq, book_no) index over <see cref="OwnedBooks"/>, so a page costs the same wherever it starts.
    /// </summary>
    public const string ChangesAfter = """
        WHERE ub.user_no = $1 AND (ub.seq, ub.book_no) > ($2, $3)
        ORDER BY ub.seq, ub.book_no
        LIMIT $4
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit. Columns: seq, book_no, title, author, removed, modified_at.
    /// </summary>
    public const string EntitlementChanges = $"""
        SELECT ub.seq, ub.book_no, coalesce(b.title, ''), b.author, ub.removed_at IS NOT NULL, coalesce(ub.modified_at, ub.acquired_at)
        {OwnedBooks}
        {ChangesAfter}
        """;

    /// <summary>
    /// $1 user_no, $2 book_no, $3 seq. Grants the book, or grants it again after a removal; no row when the book does not exist.
    /// </summary>
    public const string Grant = """
        INSERT INTO users_books AS ub (user_no, book_no, acquired_at, seq, modified_at)
        SELECT $1, $2, now(), $3, now() FROM books WHERE book_no = $2
        ON CONFLICT (user_no, book_no) DO UPDATE SET
            seq = EXCLUDED.seq, modified_at = now(), removed_at = NULL,
            acquired_at = CASE WHEN ub.removed_at IS NULL THEN ub.acquired_at ELSE now() END
        RETURNING 1
        """;

    /// <summary>$1 user_no, $2 book_no, $3 seq. Marks an owned book removed; no row when it was not owned.</summary>
    public const string Remove = """
        UPDATE users_books SET seq = $3, modified_at = now(), removed_at = now()
        WHERE user_no = $1 AND book_no = $2 AND removed_at IS NULL
        RETURNING 1
        """;
}
