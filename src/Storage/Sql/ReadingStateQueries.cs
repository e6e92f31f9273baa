namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of reading states (Migrations/0004_reading_states.sql). A write starts with
/// <see cref="ChangeSeqQueries.TakeChangeSeq"/>, as every write of a user's sync data does: the user's row lock
/// it holds to commit serialises the user's reading state writes and ownership changes, so the state
/// and ownership read after it cannot change before the write commits (no row lock of their own needed).
/// </summary>
public static class ReadingStateQueries
{
    /// <summary>The columns of a state, in this order, after any leading ones.</summary>
    public const string StateColumns = "percent, location, position_at, status, status_at, time_spent_minutes, statistics_at";

    /// <summary>
    /// $1 user_no, $2 book_no. No row when the user does not exist; otherwise whether the user owns the
    /// book (a users_books row not removed), then the state's columns (all null when none is stored).
    /// </summary>
    public const string Load = """
        SELECT EXISTS (SELECT 1 FROM users_books WHERE user_no = $1 AND book_no = $2 AND removed_at IS NULL),
               rs.percent, rs.location, rs.position_at, rs.status, rs.status_at, rs.time_spent_minutes, rs.statistics_at
        FROM users u
        LEFT JOIN reading_states rs ON rs.user_no = u.user_no AND rs.book_no = $2
        WHERE u.user_no = $1
        """;

    /// <summary>
    /// $1 user_no, $2 book_no, $3 percent, $4 location, $5 position_at, $6 status, $7 status_at,
    /// $8 time_spent_minutes, $9 statistics_at, $10 seq. Stores the whole decided state.
    /// </summary>
    public const string Store = """
        INSERT INTO reading_states AS rs (user_no, book_no, percent, location, position_at, status, status_at,
                                          time_spent_minutes, statistics_at, seq, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())
        ON CONFLICT (user_no, book_no) DO UPDATE SET
            percent = EXCLUDED.percent, location = EXCLUDED.location, position_at = EXCLUDED.position_at,
            status = EXCLUDED.status, status_at = EXCLUDED.status_at,
            time_spent_minutes = EXCLUDED.time_spent_minutes, statistics_at = EXCLUDED.statistics_at,
            seq = EXCLUDED.seq, updated_at = now()
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit: the delta pull's third stream,
    /// a keyset scan of reading_states_changes. Columns: seq, book_no, then <see cref="StateColumns"/>.
    /// </summary>
    public const string Changes = """
        SELECT seq, book_no, percent, location, position_at, status, status_at, time_spent_minutes, statistics_at
        FROM reading_states
        WHERE user_no = $1 AND (seq, book_no) > ($2, $3)
        ORDER BY seq, book_no
        LIMIT $4
        """;
}
