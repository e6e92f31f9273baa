namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of a user's devices: each pull's record, the add of a new device under the user's
/// device lock, the device list, revocations and their purge.
/// </summary>
public static class DeviceQueries
{
    /// <summary>
    /// $1 user numbers, $2 device ids, $3 acknowledged positions (null: keep the stored one), $4 pull times:
    /// devices' pulls, written behind (<c>DevicePositionWriter</c>), one statement for a whole batch. Each
    /// known device keeps its latest pull by time (batches of two instances may arrive in either order).
    /// Columns: user_no, device_id of the devices it found; the others are new to their users.
    /// </summary>
    public const string RecordPulls = """
        UPDATE devices d
        SET last_sync_at = greatest(d.last_sync_at, p.at),
            acked_seq = CASE WHEN p.acked_seq IS NOT NULL AND (d.last_sync_at IS NULL OR d.last_sync_at <= p.at)
                             THEN p.acked_seq ELSE d.acked_seq END
        FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::timestamptz[]) AS p(user_no, device_id, acked_seq, at)
        WHERE d.user_no = p.user_no AND d.device_id = p.device_id
        RETURNING d.user_no, d.device_id
        """;

    /// <summary>
    /// $1 user_no, $2 device_id, $3 acknowledged seq (null: none), $4 pull time. Adds a device with its first
    /// pull (or keeps the later pull, when another came first).
    /// </summary>
    public const string AddPulledDevice = """
        INSERT INTO devices (user_no, device_id, last_sync_at, acked_seq) VALUES ($1, $2, $4, coalesce($3::bigint, 0))
        ON CONFLICT (user_no, device_id) DO UPDATE
        SET last_sync_at = greatest(devices.last_sync_at, EXCLUDED.last_sync_at),
            acked_seq = CASE WHEN $3::bigint IS NOT NULL AND (devices.last_sync_at IS NULL OR devices.last_sync_at <= EXCLUDED.last_sync_at)
                             THEN $3::bigint ELSE devices.acked_seq END
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
