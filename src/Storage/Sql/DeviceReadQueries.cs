namespace Kobo.Sync.Storage.Sql;

/// <summary>The statements of the hot device reads, kept together so they are reviewed together.</summary>
public static class DeviceReadQueries
{
    /// <summary>$1 user_no. Columns: name, country, created_at.</summary>
    public const string FindUser = "SELECT name, country, created_at FROM users WHERE user_no = $1";

    /// <summary>
    /// $1 user_no, $2 after (exclusive), $3 before (exclusive), $4 limit. One round trip that also
    /// says whether the user exists: no row means no such user; one row with a null id means the user
    /// has nothing in the range. The inner query is a primary key range scan bounded on both sides;
    /// the user_no filter guards against a range that strays outside the user's prefix, and its
    /// reference to u makes the join a nested loop over the single user row, so rows come out in
    /// the inner scan's id order with no Sort on top. It is written <c>user_no + 0</c> so that it stays a
    /// filter: the sync feed's index (user_no, seq, id) would otherwise tempt the planner into reading
    /// all of a user's rows and sorting them. Tombstones (deleted_at set) are sync's, not the reads'.
    /// Columns: id, book_no, text, start, length, color, note, created_at, modified_at, location.
    /// </summary>
    public const string ListHighlights = """
        SELECT h.id, h.book_no, h.text, h.start, h.length, h.color, h.note, h.created_at, h.modified_at, h.location
        FROM users u
        LEFT JOIN LATERAL (
            SELECT id, book_no, text, start, length, color, note, created_at, modified_at, location
            FROM highlights
            WHERE id > $2 AND id < $3 AND user_no + 0 = u.user_no AND deleted_at IS NULL
            ORDER BY id
            LIMIT $4
        ) h ON true
        WHERE u.user_no = $1
        """;
}
