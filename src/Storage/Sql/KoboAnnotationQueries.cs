namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of the Kobo annotation endpoints (the highlights themselves are written by device
/// sync). A book's highlights are read by their id prefix, <c>highlights/users{user}-ebooks/{book}/</c>:
/// a primary-key range scan, as the book reads do.
/// </summary>
public static class KoboAnnotationQueries
{
    /// <summary>$1 user_no, $2 book_no. One row when the user owns the book now.</summary>
    public const string OwnsBook = "SELECT 1 FROM users_books WHERE user_no = $1 AND book_no = $2 AND removed_at IS NULL";

    /// <summary>$1 user_no, $2 reader, $3 book_no, $4 withheld. A withheld book stays withheld.</summary>
    public const string RecordReceived = """
        INSERT INTO kobo_annotation_books AS k (user_no, reader, book_no, withheld_at)
        VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)
        ON CONFLICT (user_no, reader, book_no) DO UPDATE SET withheld_at = coalesce(k.withheld_at, EXCLUDED.withheld_at)
        """;

    /// <summary>
    /// $1 user_no, $2 reader, $3 book numbers. Columns: book_no, owned, received, withheld, the
    /// highest seq of the book's highlights (tombstones included; 0 when none), the number of its live
    /// highlights that carry a location.
    /// </summary>
    public const string BookStates = """
        SELECT b.book_no,
               EXISTS (SELECT 1 FROM users_books ub WHERE ub.user_no = $1 AND ub.book_no = b.book_no AND ub.removed_at IS NULL),
               k.book_no IS NOT NULL,
               k.withheld_at IS NOT NULL,
               coalesce(h.last_seq, 0),
               coalesce(h.located, 0)::int
        FROM unnest($3::bigint[]) AS b(book_no)
        LEFT JOIN kobo_annotation_books k ON k.user_no = $1 AND k.reader = $2 AND k.book_no = b.book_no
        LEFT JOIN LATERAL (
            SELECT max(seq) AS last_seq, count(*) FILTER (WHERE deleted_at IS NULL AND location IS NOT NULL) AS located
            FROM highlights
            WHERE id > 'highlights/users' || $1 || '-ebooks/' || b.book_no || '/'
              AND id < 'highlights/users' || $1 || '-ebooks/' || b.book_no || '0'
              AND user_no + 0 = $1
        ) h ON true
        """;

    /// <summary>
    /// $1 user_no, $2 after (exclusive), $3 before (exclusive), $4 limit. The book's live highlights that
    /// carry a location, in id order. Columns: id, book_no, text, start, length, color, note, created_at,
    /// modified_at, location.
    /// </summary>
    public const string LocatedHighlights = """
        SELECT id, book_no, text, start, length, color, note, created_at, modified_at, location
        FROM highlights
        WHERE id > $2 AND id < $3 AND user_no + 0 = $1 AND deleted_at IS NULL AND location IS NOT NULL
        ORDER BY id
        LIMIT $4
        """;
}
