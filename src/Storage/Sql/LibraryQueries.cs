namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The reads of library sync: a user's ownership changes, each book with its reading state, and the
/// reading state changes, without the highlights the device pull also reads.
/// </summary>
public static class LibraryQueries
{
    /// <summary>
    /// The book's file a device downloads, as columns format and size (nulls when the catalogue states
    /// none): its KEPUB when it has one, else its EPUB3. At most two rows of the book_files key.
    /// </summary>
    private const string PreferredFile = """
        LEFT JOIN LATERAL (
            SELECT bf.format, bf.size FROM book_files bf
            WHERE bf.book_no = ub.book_no
            ORDER BY bf.format = 'KEPUB' DESC
            LIMIT 1
        ) f ON true
        """;

    /// <summary>
    /// A book of the library and where the reader is in it: the ownership row joined to its book, to the
    /// user's reading state of it by key (a device lists the book and where the reader is from one item)
    /// and to the book's file. Columns: book_no, title, author, language, removed, acquired_at,
    /// modified_at, then <see cref="ReadingStateQueries.StateColumns"/> (all null for a book never opened),
    /// then the book's file (<see cref="PreferredFile"/>).
    /// </summary>
    private const string BookColumns = """
        ub.book_no, coalesce(b.title, ''), b.author, b.language, ub.removed_at IS NOT NULL,
               ub.acquired_at, coalesce(ub.modified_at, ub.acquired_at),
               rs.percent, rs.location, rs.position_at, rs.status, rs.status_at, rs.time_spent_minutes, rs.statistics_at,
               f.format, f.size
        """;

    /// <summary>The rows and joins <see cref="BookColumns"/> reads.</summary>
    private const string BookSource = $"""
        {OwnershipQueries.OwnedBooks}
        LEFT JOIN reading_states rs ON rs.user_no = ub.user_no AND rs.book_no = ub.book_no
        {PreferredFile}
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit. A keyset range of the user's
    /// ownership changes (<see cref="OwnershipQueries.ChangesAfter"/>). Columns: seq, then <see cref="BookColumns"/>.
    /// </summary>
    public const string Changes = $"""
        SELECT ub.seq, {BookColumns}
        {BookSource}
        {OwnershipQueries.ChangesAfter}
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit: the reading state changes as
    /// <see cref="ReadingStateQueries.Changes"/> reads them, each with when the user got the book (null
    /// if the book left users_books). Columns: seq, book_no, acquired_at, then <see cref="ReadingStateQueries.StateColumns"/>.
    /// </summary>
    public const string ReadingStateChanges = """
        SELECT rs.seq, rs.book_no, ub.acquired_at,
               rs.percent, rs.location, rs.position_at, rs.status, rs.status_at, rs.time_spent_minutes, rs.statistics_at
        FROM reading_states rs
        LEFT JOIN users_books ub ON ub.user_no = rs.user_no AND ub.book_no = rs.book_no
        WHERE rs.user_no = $1 AND (rs.seq, rs.book_no) > ($2, $3)
        ORDER BY rs.seq, rs.book_no
        LIMIT $4
        """;

    /// <summary>$1 user_no, $2 book_no. Columns: <see cref="BookColumns"/>; no row when the user never had the book.</summary>
    public const string Book = $"""
        SELECT {BookColumns}
        {BookSource}
        WHERE ub.user_no = $1 AND ub.book_no = $2
        """;
}
