using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of highlight sync: the push's load and store of highlights, the holdings it keeps,
/// and the pull's keyset page of highlight changes. A push takes its numbers first (<see cref="ChangeSeqQueries"/>).
/// </summary>
public static class HighlightSyncQueries
{
    /// <summary>
    /// $1 user_no, $2 change of the live highlight count, $3 change of their bytes, $4 change of the tombstones. In the push's transaction,
    /// beside its store.
    /// </summary>
    public const string ChangeHoldings =
        "UPDATE users SET highlight_count = highlight_count + $2, highlight_bytes = highlight_bytes + $3, " +
        "tombstone_count = tombstone_count + $4 WHERE user_no = $1";

    /// <summary>
    /// Sets every user's holdings from the highlights stored: for the seeders, which load highlights
    /// with COPY and so past the pushes that keep the holdings. The same measure as <c>HighlightHoldings.Of</c>.
    /// </summary>
    public const string RecountHoldings = """
        UPDATE users u SET highlight_count = h.count, highlight_bytes = h.bytes, tombstone_count = h.tombstones
        FROM (
            SELECT user_no, count(*) FILTER (WHERE deleted_at IS NULL) AS count,
                   coalesce(sum(octet_length(text) + coalesce(octet_length(note), 0) + coalesce(octet_length(location), 0))
                       FILTER (WHERE deleted_at IS NULL), 0) AS bytes,
                   count(*) FILTER (WHERE deleted_at IS NOT NULL) AS tombstones
            FROM highlights
            GROUP BY user_no
        ) h
        WHERE u.user_no = h.user_no
        """;

    /// <summary>
    /// $1 ids. Locks the rows (so the purge, which skips locked rows, cannot remove a tombstone being
    /// revived). Columns: id, text, start, length, color, note, created_at, modified_at, version,
    /// deleted, text_at, range_at, color_at, note_at, location.
    /// </summary>
    public const string LoadForWrite = """
        SELECT id, text, start, length, color, note, created_at, modified_at, version, deleted_at IS NOT NULL,
               coalesce(text_at, modified_at), coalesce(range_at, modified_at),
               coalesce(color_at, modified_at), coalesce(note_at, modified_at), location
        FROM highlights
        WHERE id = ANY($1)
        FOR UPDATE
        """;

    /// <summary>
    /// $1 user_no, then one array per column: $2 id, $3 book_no, $4 text, $5 start, $6 length, $7 color,
    /// $8 note, $9 created_at, $10 modified_at, $11 seq, $12 version, $13 deleted, $14 text_at,
    /// $15 range_at, $16 color_at, $17 note_at, $18 location. A tombstone keeps the server time of its first deletion.
    /// </summary>
    public const string Store = """
        INSERT INTO highlights AS h (id, user_no, book_no, text, start, length, color, note, created_at, modified_at,
                                     seq, version, deleted_at, text_at, range_at, color_at, note_at, location)
        SELECT c.id, $1, c.book_no, c.text, c.start, c.length, c.color, c.note, c.created_at, c.modified_at,
               c.seq, c.version, CASE WHEN c.deleted THEN now() END, c.text_at, c.range_at, c.color_at, c.note_at, c.location
        FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[],
                    $9::timestamptz[], $10::timestamptz[], $11::bigint[], $12::bigint[], $13::bool[],
                    $14::timestamptz[], $15::timestamptz[], $16::timestamptz[], $17::timestamptz[], $18::text[])
             AS c(id, book_no, text, start, length, color, note, created_at, modified_at, seq, version, deleted,
                  text_at, range_at, color_at, note_at, location)
        ON CONFLICT (id) DO UPDATE SET
            text = EXCLUDED.text, start = EXCLUDED.start, length = EXCLUDED.length, color = EXCLUDED.color,
            note = EXCLUDED.note, modified_at = EXCLUDED.modified_at, seq = EXCLUDED.seq, version = EXCLUDED.version,
            deleted_at = CASE WHEN EXCLUDED.deleted_at IS NULL THEN NULL ELSE coalesce(h.deleted_at, EXCLUDED.deleted_at) END,
            text_at = EXCLUDED.text_at, range_at = EXCLUDED.range_at, color_at = EXCLUDED.color_at, note_at = EXCLUDED.note_at,
            location = EXCLUDED.location
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 id (the position, exclusive), $4 limit, $5 the page's byte budget. A keyset
    /// range of the (user_no, seq, id) index: the cost of a page does not depend on how many came before.
    /// Of those rows, the first two and then each whose predecessors measure at most $5 together (the
    /// running sum through the row, less the row), each measured as <c>SyncChange.PageBytes</c> measures a
    /// highlight change (<see cref="PageBudget.ItemOverheadBytes"/> plus the UTF-8 length of id, text, note
    /// and location; the database's encoding is UTF-8): a page of large highlights reads only the ones it may send. <c>octet_length</c>
    /// reads a stored value's length without decompressing it, and rows left out are never sent, so a large text costs only when delivered.
    /// Measured on the demo heavy user on a loaded 2-core box: a 1,001-row page of short highlights
    /// 0.68 ms without the measure, 1.12 ms with it (medians); a 101-row page 0.10-0.27 ms, 0.32 ms.
    /// Columns: seq, id, text, start, length, color, note, created_at, modified_at, version, deleted, location.
    /// </summary>
    public static readonly string HighlightChanges = $$"""
        SELECT seq, id, text, start, length, color, note, created_at, modified_at, version, deleted, location
        FROM (
            SELECT seq, id, text, start, length, color, note, created_at, modified_at, version, deleted, location, size,
                   row_number() OVER w AS n, sum(size) OVER w AS through
            FROM (
                SELECT seq, id, text, start, length, color, note, created_at, modified_at, version,
                       deleted_at IS NOT NULL AS deleted, location,
                       {{PageBudget.ItemOverheadBytes}} + octet_length(id) + coalesce(octet_length(text), 0)
                         + coalesce(octet_length(note), 0) + coalesce(octet_length(location), 0) AS size
                FROM highlights
                WHERE user_no = $1 AND (seq, id) > ($2, $3)
                ORDER BY seq, id
                LIMIT $4
            ) page
            WINDOW w AS (ORDER BY seq, id ROWS UNBOUNDED PRECEDING)
        ) sized
        WHERE n <= 2 OR through - size <= $5
        ORDER BY seq, id
        """;

    /// <summary>
    /// $1 user_no. Read after the change pages (a purge in between then shows here, never unseen).
    /// Column: the purged tombstones' highest seq (0 when none).
    /// </summary>
    public const string PurgeHorizon = "SELECT coalesce((SELECT highlights_seq FROM sync_purge_horizons WHERE user_no = $1), 0)";
}
