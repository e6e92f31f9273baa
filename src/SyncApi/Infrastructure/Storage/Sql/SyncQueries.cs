using Kobo.Sync.Domain.Requests;
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
    /// <see cref="TakeChangeSeq"/> for a push, also returning what the user holds (highlight_count,
    /// highlight_bytes): read under the row lock the push holds to commit, so no other write of the
    /// user's can change them before this push's own change does.
    /// </summary>
    public const string TakeChangeSeqForHighlights =
        "UPDATE users SET change_seq = change_seq + $2 WHERE user_no = $1 RETURNING change_seq, highlight_count, highlight_bytes";

    /// <summary>$1 user_no, $2 change of the live highlight count, $3 change of their bytes. In the push's transaction, beside its store.</summary>
    public const string ChangeHoldings =
        "UPDATE users SET highlight_count = highlight_count + $2, highlight_bytes = highlight_bytes + $3 WHERE user_no = $1";

    /// <summary>
    /// Sets every user's holdings from the highlights stored: for the seeders, which load highlights
    /// with COPY and so past the pushes that keep the holdings. The same measure as <c>HighlightHoldings.Of</c>.
    /// </summary>
    public const string RecountHoldings = """
        UPDATE users u SET highlight_count = h.count, highlight_bytes = h.bytes
        FROM (
            SELECT user_no, count(*) AS count,
                   sum(octet_length(text) + coalesce(octet_length(note), 0) + coalesce(octet_length(location), 0)) AS bytes
            FROM highlights
            WHERE deleted_at IS NULL
            GROUP BY user_no
        ) h
        WHERE u.user_no = h.user_no
        """;

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
    /// running sum through the row, less the row), each measured as <c>PageBudget.SizeOf</c> measures a
    /// highlight change (<see cref="PageBudget.ItemOverheadBytes"/> plus the UTF-8 length of id, text, note
    /// and location; the database's encoding is UTF-8): a page of large highlights reads only the ones it may send. <c>octet_length</c> reads a stored value's length without
    /// decompressing it, and rows left out are never sent, so a large text costs only when delivered.
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

    /// <summary>
    /// $1 user_no, $2 device_id, $3 acknowledged seq. Updates a known device: the pull of every device
    /// but a new one is this one statement. No row changed when the device is new (<see cref="AddDevice"/>).
    /// </summary>
    public const string RecordPull = """
        UPDATE devices SET last_sync_at = now(), acked_seq = $3 WHERE user_no = $1 AND device_id = $2
        """;

    /// <summary>
    /// $1 user_no. Taken first in the transactions that add or revoke a user's devices, so their counts
    /// of the user's devices hold until they commit. A lock of its own (two keys: never one of the
    /// single-key locks of migrations and seeding), so it never waits on a push's lock on the user.
    /// </summary>
    public const string LockUserDevices = "SELECT pg_advisory_xact_lock(1684371049, hashint8($1))";

    /// <summary>
    /// $1 user_no, $2 device_id, $3 revocations in force since, $4 the most devices a user keeps.
    /// Makes room for one more device: drops the user's least recently seen devices, as many as it
    /// takes, among those whose revocation is not in force (dropping one in force would undo it).
    /// </summary>
    public const string MakeRoomForDevice = """
        DELETE FROM devices d
        USING (
            SELECT device_id FROM devices
            WHERE user_no = $1 AND device_id <> $2 AND (revoked_at IS NULL OR revoked_at < $3)
            ORDER BY coalesce(last_sync_at, first_seen_at), device_id
            LIMIT greatest(0, (SELECT count(*) FROM devices WHERE user_no = $1 AND device_id <> $2) - ($4 - 1))
        ) oldest
        WHERE d.user_no = $1 AND d.device_id = oldest.device_id
        """;

    /// <summary>$1 user_no, $2 device_id, $3 acknowledged seq. Adds a device with its first pull (or updates it, when another pull of it came first).</summary>
    public const string AddDevice = """
        INSERT INTO devices (user_no, device_id, last_sync_at, acked_seq) VALUES ($1, $2, now(), $3)
        ON CONFLICT (user_no, device_id) DO UPDATE SET last_sync_at = now(), acked_seq = EXCLUDED.acked_seq
        """;

    /// <summary>
    /// $1 user_no, $2 device_id and $3 last_sync_at of the position (exclusive; $2 null: from the
    /// first; $3 null: a device that never pulled), $4 limit. Most recently synced first, never
    /// pulled last, then by id: a keyset over the user's devices, which the device limit keeps few.
    /// No row when the user does not exist; one row with a null device_id when no device follows.
    /// Columns: device_id, first_seen_at, last_sync_at, acked_seq, revoked_at.
    /// </summary>
    public const string ListDevices = """
        SELECT d.device_id, d.first_seen_at, d.last_sync_at, d.acked_seq, d.revoked_at
        FROM users u
        LEFT JOIN LATERAL (
            SELECT device_id, first_seen_at, last_sync_at, acked_seq, revoked_at
            FROM devices
            WHERE user_no = u.user_no
              AND ($2::text IS NULL
                   OR ($3::timestamptz IS NOT NULL
                       AND (last_sync_at < $3 OR last_sync_at IS NULL OR (last_sync_at = $3 AND device_id > $2)))
                   OR ($3::timestamptz IS NULL AND last_sync_at IS NULL AND device_id > $2))
            ORDER BY last_sync_at DESC NULLS LAST, device_id
            LIMIT $4
        ) d ON true
        WHERE u.user_no = $1
        ORDER BY d.last_sync_at DESC NULLS LAST, d.device_id
        """;

    /// <summary>
    /// $1 user_no, $2 device_id, $3 revocations in force since, $4 the most revoked devices a user may
    /// hold. Revokes a known device, unless that would put the user over $4 revocations in force; a
    /// device revoked again takes the later time (a token issued to it after its first revocation, at
    /// re-enrolment, must stop working too). Creates no device. One row: the user exists, the device
    /// is known, the revocation time (null when not revoked), whether the user is at $4.
    /// </summary>
    public const string RevokeDevice = """
        WITH target AS (
            SELECT coalesce(revoked_at >= $3, false) AS in_force FROM devices WHERE user_no = $1 AND device_id = $2
        ), others AS (
            SELECT count(*) AS in_force FROM devices WHERE user_no = $1 AND device_id <> $2 AND revoked_at >= $3
        ), revoked AS (
            UPDATE devices d SET revoked_at = greatest(d.revoked_at, now())
            FROM target t, others o
            WHERE d.user_no = $1 AND d.device_id = $2 AND (t.in_force OR o.in_force < $4)
            RETURNING d.revoked_at
        )
        SELECT EXISTS (SELECT 1 FROM users WHERE user_no = $1),
               EXISTS (SELECT 1 FROM target),
               (SELECT revoked_at FROM revoked),
               (SELECT in_force FROM others) >= $4 AND NOT coalesce((SELECT in_force FROM target), false)
        """;

    /// <summary>
    /// $1 cutoff (revocations made before it have lapsed), $2 batch size. One batch of lapsed
    /// revocations, oldest first, skipping rows a device call holds: a device that pulled after its
    /// revocation (re-enrolled) keeps its row without the revocation; any other is forgotten, as it
    /// has nothing left to refuse. Returns how many revocations it removed.
    /// </summary>
    public const string PurgeRevocations = """
        WITH lapsed AS (
            SELECT user_no, device_id, coalesce(last_sync_at > revoked_at, false) AS came_back
            FROM devices
            WHERE revoked_at < $1
            ORDER BY revoked_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        ), forgotten AS (
            DELETE FROM devices d USING lapsed l
            WHERE d.user_no = l.user_no AND d.device_id = l.device_id AND NOT l.came_back
            RETURNING 1
        ), cleared AS (
            UPDATE devices d SET revoked_at = NULL FROM lapsed l
            WHERE d.user_no = l.user_no AND d.device_id = l.device_id AND l.came_back
            RETURNING 1
        )
        SELECT ((SELECT count(*) FROM forgotten) + (SELECT count(*) FROM cleared))::int
        """;

    /// <summary>$1 since (inclusive). Columns: user_no, device_id, revoked_at.</summary>
    public const string RevokedDevices = """
        SELECT user_no, device_id, revoked_at FROM devices WHERE revoked_at >= $1
        """;
}
