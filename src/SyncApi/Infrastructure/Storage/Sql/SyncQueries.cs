using Kobo.Sync.SyncApi.Infrastructure.Live;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;

/// <summary>
/// The statements of device sync (push, pull, ownership changes, tombstone purge). Every write of a
/// user's sync data starts with <see cref="TakeChangeSeq"/>: the user's row lock it takes is held to
/// commit, so a user's writes commit in the order of their sequence numbers and a pull by
/// "(seq, id) after the token" cannot skip one (see Migrations/0002_device_sync.sql).
/// </summary>
internal static class SyncQueries
{
    /// <summary>$1 user_no, $2 how many numbers to reserve. Returns the last reserved number; no row when the user does not exist.</summary>
    public const string TakeChangeSeq = "UPDATE users SET change_seq = change_seq + $2 WHERE user_no = $1 RETURNING change_seq";

    /// <summary>
    /// $1 user_no, $2 the highest change sequence number the transaction wrote. Live pull's wake-up, sent
    /// inside the writing transaction: PostgreSQL delivers it at commit, and never when the transaction
    /// rolls back. Payload <c>"{user} {seq} {stampMs}"</c> (<see cref="ChangeNotification"/>), the stamp
    /// from the database's clock in Unix milliseconds. NOTIFY serialises the commits of all notifying
    /// transactions (docs/operations.md, "Live pull").
    /// </summary>
    public const string Notify =
        "SELECT pg_notify('" + ChangeNotification.Channel + "', $1::text || ' ' || $2::text || ' ' || "
        + "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text)";

    /// <summary>$1 user numbers. Columns: user_no, change_seq: where each user's change sequence stands now.</summary>
    public const string ChangeSeqs = "SELECT user_no, change_seq FROM users WHERE user_no = ANY($1)";

    /// <summary>
    /// $1 ids. Locks the rows (so the purge, which skips locked rows, cannot remove a tombstone being
    /// revived). Columns: id, text, start, length, color, note, created_at, modified_at, version,
    /// deleted, text_at, range_at, color_at, note_at.
    /// </summary>
    public const string LoadForWrite = """
        SELECT id, text, start, length, color, note, created_at, modified_at, version, deleted_at IS NOT NULL,
               coalesce(text_at, modified_at), coalesce(range_at, modified_at),
               coalesce(color_at, modified_at), coalesce(note_at, modified_at)
        FROM highlights
        WHERE id = ANY($1)
        FOR UPDATE
        """;

    /// <summary>
    /// $1 user_no, then one array per column: $2 id, $3 book_no, $4 text, $5 start, $6 length, $7 color,
    /// $8 note, $9 created_at, $10 modified_at, $11 seq, $12 version, $13 deleted, $14 text_at,
    /// $15 range_at, $16 color_at, $17 note_at. A tombstone keeps the server time of its first deletion.
    /// </summary>
    public const string Store = """
        INSERT INTO highlights AS h (id, user_no, book_no, text, start, length, color, note, created_at, modified_at,
                                     seq, version, deleted_at, text_at, range_at, color_at, note_at)
        SELECT c.id, $1, c.book_no, c.text, c.start, c.length, c.color, c.note, c.created_at, c.modified_at,
               c.seq, c.version, CASE WHEN c.deleted THEN now() END, c.text_at, c.range_at, c.color_at, c.note_at
        FROM unnest($2::text[], $3::bigint[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[],
                    $9::timestamptz[], $10::timestamptz[], $11::bigint[], $12::bigint[], $13::bool[],
                    $14::timestamptz[], $15::timestamptz[], $16::timestamptz[], $17::timestamptz[])
             AS c(id, book_no, text, start, length, color, note, created_at, modified_at, seq, version, deleted,
                  text_at, range_at, color_at, note_at)
        ON CONFLICT (id) DO UPDATE SET
            text = EXCLUDED.text, start = EXCLUDED.start, length = EXCLUDED.length, color = EXCLUDED.color,
            note = EXCLUDED.note, modified_at = EXCLUDED.modified_at, seq = EXCLUDED.seq, version = EXCLUDED.version,
            deleted_at = CASE WHEN EXCLUDED.deleted_at IS NULL THEN NULL ELSE coalesce(h.deleted_at, EXCLUDED.deleted_at) END,
            text_at = EXCLUDED.text_at, range_at = EXCLUDED.range_at, color_at = EXCLUDED.color_at, note_at = EXCLUDED.note_at
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 id (the position, exclusive), $4 limit. A keyset range of the
    /// (user_no, seq, id) index: the cost of a page does not depend on how many came before.
    /// Columns: seq, id, text, start, length, color, note, created_at, modified_at, version, deleted.
    /// </summary>
    public const string HighlightChanges = """
        SELECT seq, id, text, start, length, color, note, created_at, modified_at, version, deleted_at IS NOT NULL
        FROM highlights
        WHERE user_no = $1 AND (seq, id) > ($2, $3)
        ORDER BY seq, id
        LIMIT $4
        """;

    /// <summary>$1 user_no, $2 seq, $3 book_no (the position, exclusive), $4 limit. Columns: seq, book_no, title, author, removed, modified_at.</summary>
    public const string EntitlementChanges = """
        SELECT ub.seq, ub.book_no, coalesce(b.title, ''), b.author, ub.removed_at IS NOT NULL, coalesce(ub.modified_at, ub.acquired_at)
        FROM users_books ub
        LEFT JOIN books b ON b.book_no = ub.book_no
        WHERE ub.user_no = $1 AND (ub.seq, ub.book_no) > ($2, $3)
        ORDER BY ub.seq, ub.book_no
        LIMIT $4
        """;

    /// <summary>
    /// $1 user_no. Read before the change pages: every change numbered up to this value has committed,
    /// so the pages, read after, see all of them. No row when the user does not exist.
    /// </summary>
    public const string CommittedSeq = "SELECT change_seq FROM users WHERE user_no = $1";

    /// <summary>
    /// $1 user_no. Read after the change pages (a purge in between then shows here, never unseen).
    /// Column: the purged tombstones' highest seq (0 when none).
    /// </summary>
    public const string PurgeHorizon = "SELECT coalesce((SELECT highlights_seq FROM sync_purge_horizons WHERE user_no = $1), 0)";

    /// <summary>$1 user_no, $2 book_no, $3 seq. Grants the book, or grants it again after a removal; no row when the book does not exist.</summary>
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

    /// <summary>
    /// $1 cutoff (tombstones deleted before it expire), $2 batch size. Deletes one batch of expired
    /// tombstones, oldest first, skipping rows a device write holds locked (so the purge never waits on
    /// device traffic, nor device traffic long on it), and raises each affected user's purge horizon.
    /// Returns the number of tombstones deleted.
    /// </summary>
    public const string PurgeTombstones = """
        WITH expired AS (
            SELECT id FROM highlights
            WHERE deleted_at < $1
            ORDER BY deleted_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        ), purged AS (
            DELETE FROM highlights h USING expired e
            WHERE h.id = e.id
            RETURNING h.user_no, h.seq
        ), horizons AS (
            INSERT INTO sync_purge_horizons AS p (user_no, highlights_seq)
            SELECT user_no, max(seq) FROM purged GROUP BY user_no
            ON CONFLICT (user_no) DO UPDATE SET highlights_seq = greatest(p.highlights_seq, EXCLUDED.highlights_seq)
        )
        SELECT count(*)::int FROM purged
        """;

    /// <summary>$1 user_no, $2 device_id, $3 acknowledged seq.</summary>
    public const string RecordPull = """
        INSERT INTO devices (user_no, device_id, last_sync_at, acked_seq) VALUES ($1, $2, now(), $3)
        ON CONFLICT (user_no, device_id) DO UPDATE SET last_sync_at = now(), acked_seq = EXCLUDED.acked_seq
        """;

    /// <summary>
    /// $1 user_no. No row when the user does not exist; one row with a null device_id when the user has
    /// no devices. Columns: device_id, first_seen_at, last_sync_at, acked_seq, revoked_at.
    /// </summary>
    public const string ListDevices = """
        SELECT d.device_id, d.first_seen_at, d.last_sync_at, d.acked_seq, d.revoked_at
        FROM users u
        LEFT JOIN devices d ON d.user_no = u.user_no
        WHERE u.user_no = $1
        ORDER BY d.last_sync_at DESC NULLS LAST, d.device_id
        """;

    /// <summary>$1 user_no, $2 device_id. Returns the revocation time; no row when the user does not exist.</summary>
    public const string RevokeDevice = """
        INSERT INTO devices AS d (user_no, device_id, revoked_at)
        SELECT $1, $2, now() FROM users WHERE user_no = $1
        ON CONFLICT (user_no, device_id) DO UPDATE SET revoked_at = coalesce(d.revoked_at, EXCLUDED.revoked_at)
        RETURNING revoked_at
        """;

    /// <summary>$1 since (inclusive). Columns: user_no, device_id, revoked_at.</summary>
    public const string RevokedDevices = """
        SELECT user_no, device_id, revoked_at FROM devices WHERE revoked_at >= $1
        """;
}
