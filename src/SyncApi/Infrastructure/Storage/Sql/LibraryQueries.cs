namespace Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;

/// <summary>The reads of library sync: a user's ownership changes, without the highlights the device pull also reads.</summary>
internal static class LibraryQueries
{
    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit. A keyset range of the
    /// (user_no, seq, book_no) index, each row joined to its book by key. Columns: seq, book_no, title,
    /// author, language, removed, acquired_at, modified_at.
    /// </summary>
    public const string Changes = """
        SELECT ub.seq, ub.book_no, coalesce(b.title, ''), b.author, b.language, ub.removed_at IS NOT NULL,
               ub.acquired_at, coalesce(ub.modified_at, ub.acquired_at)
        FROM users_books ub
        LEFT JOIN books b ON b.book_no = ub.book_no
        WHERE ub.user_no = $1 AND (ub.seq, ub.book_no) > ($2, $3)
        ORDER BY ub.seq, ub.book_no
        LIMIT $4
        """;

    /// <summary>$1 user_no, $2 book_no. Columns as <see cref="Changes"/> without seq; no row when the user never had the book.</summary>
    public const string Book = """
        SELECT ub.book_no, coalesce(b.title, ''), b.author, b.language, ub.removed_at IS NOT NULL,
               ub.acquired_at, coalesce(ub.modified_at, ub.acquired_at)
        FROM users_books ub
        LEFT JOIN books b ON b.book_no = ub.book_no
        WHERE ub.user_no = $1 AND ub.book_no = $2
        """;
}
