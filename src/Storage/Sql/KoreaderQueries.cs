namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of KOReader's progress sync (Migrations/0014_koreader.sql): logins, the resolution of a
/// device's document to an owned book or a kept document, KOReader's part of a reading state, kept documents.
/// </summary>
public static class KoreaderQueries
{
    /// <summary>The most live logins one device keeps: a newer one revokes the oldest beyond it.</summary>
    public const int MaxLiveLoginsPerDevice = 5;

    /// <summary>The most live logins one user keeps.</summary>
    public const int MaxLiveLoginsPerUser = 10;

    /// <summary>The most revoked logins kept per user (for the user's list).</summary>
    public const int MaxRevokedLoginsPerUser = 20;

    /// <summary>
    /// $1 user_no, $2 device_id, $3 username, $4 key_hash, $5 the earliest revocation that refuses the asking
    /// token. One row: whether the device's revocation refuses it, and the login's created_at (null when
    /// refused or when the user does not exist). Runs under the user's device lock, as a Kobo link's creation.
    /// </summary>
    public const string Create = """
        WITH refused AS (
            SELECT EXISTS (SELECT 1 FROM devices WHERE user_no = $1 AND device_id = $2 AND revoked_at >= $5) AS revoked
        ), created AS (
            INSERT INTO koreader_credentials (username, user_no, device_id, key_hash)
            SELECT $3, $1, $2, $4 FROM users, refused WHERE users.user_no = $1 AND NOT refused.revoked
            RETURNING created_at
        )
        SELECT (SELECT revoked FROM refused) AS revoked, (SELECT created_at FROM created) AS created_at
        """;

    /// <summary>$1 user_no. Revokes the user's live logins beyond the bounds, oldest first.</summary>
    public static readonly string RevokeBeyondBounds = $"""
        UPDATE koreader_credentials SET revoked_at = now()
        WHERE user_no = $1 AND revoked_at IS NULL AND username IN (
            SELECT username FROM (
                SELECT username,
                       row_number() OVER (PARTITION BY device_id ORDER BY created_at DESC, username) AS in_device,
                       row_number() OVER (ORDER BY created_at DESC, username) AS in_user
                FROM koreader_credentials WHERE user_no = $1 AND revoked_at IS NULL) ranked
            WHERE in_device > {MaxLiveLoginsPerDevice} OR in_user > {MaxLiveLoginsPerUser})
        RETURNING username
        """;

    /// <summary>$1 user_no. Deletes the user's revoked logins beyond the newest <see cref="MaxRevokedLoginsPerUser"/>.</summary>
    public static readonly string DropOldestRevoked = $"""
        DELETE FROM koreader_credentials
        WHERE user_no = $1 AND username IN (
            SELECT username FROM koreader_credentials
            WHERE user_no = $1 AND revoked_at IS NOT NULL
            ORDER BY revoked_at DESC, username
            OFFSET {MaxRevokedLoginsPerUser})
        """;

    /// <summary>
    /// $1 username. Columns: user_no, device_id, key_hash, created_at, revoked_at (revoked when the login was, or when
    /// its device was revoked after the login was made).
    /// </summary>
    public const string Find = """
        SELECT c.user_no, c.device_id, c.key_hash, c.created_at,
               COALESCE(c.revoked_at, CASE WHEN d.revoked_at >= c.created_at THEN d.revoked_at END)
        FROM koreader_credentials c
        LEFT JOIN devices d ON d.user_no = c.user_no AND d.device_id = c.device_id
        WHERE c.username = $1
        """;

    /// <summary>
    /// $1 user_no. First row: whether the user exists; then the logins, newest first: username, device_id, created_at, revoked_at.
    /// </summary>
    public static readonly string List = $"""
        SELECT NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, EXISTS (SELECT 1 FROM users WHERE user_no = $1)
        UNION ALL
        (SELECT username, device_id, created_at, revoked_at, true
         FROM koreader_credentials WHERE user_no = $1
         ORDER BY created_at DESC, username
         LIMIT {MaxLiveLoginsPerUser + MaxRevokedLoginsPerUser})
        """;

    /// <summary>$1 user_no, $2 username. Revokes it (a revoked one keeps its time); one row when the user has it.</summary>
    public const string Revoke = """
        UPDATE koreader_credentials SET revoked_at = COALESCE(revoked_at, now())
        WHERE user_no = $1 AND username = $2
        RETURNING 1
        """;

    /// <summary>$1 user_no, $2 device_id. In the device revocation's batch: the device's logins are revoked with it, for good.</summary>
    public const string RevokeWithDevice = """
        UPDATE koreader_credentials c SET revoked_at = d.revoked_at
        FROM devices d
        WHERE d.user_no = $1 AND d.device_id = $2 AND d.revoked_at IS NOT NULL
          AND c.user_no = $1 AND c.device_id = $2 AND c.revoked_at IS NULL AND c.created_at <= d.revoked_at
        """;

    /// <summary>
    /// $1 user_no, $2 the digests in the device's order. The first that is a KOReader digest of a book the user
    /// owns (the lowest book number when one digest names several): candidate index (from 1), book_no.
    /// </summary>
    public const string ResolveBook = """
        SELECT c.ord, d.book_no
        FROM unnest($2::text[]) WITH ORDINALITY AS c(digest, ord)
        JOIN book_file_digests d ON d.digest = lower(c.digest)
        JOIN users_books ub ON ub.user_no = $1 AND ub.book_no = d.book_no AND ub.removed_at IS NULL
        ORDER BY c.ord, d.book_no
        LIMIT 1
        """;

    /// <summary>
    /// $1 user_no, $2 the digests in the device's order. The first that names a kept document, or is an alias of
    /// one: candidate index (from 1), then the document's columns.
    /// </summary>
    public const string ResolveDocument = """
        SELECT c.ord, k.document, k.percentage, k.progress, k.device, k.device_id, k.identifiers, k.updated_at
        FROM unnest($2::text[]) WITH ORDINALITY AS c(digest, ord)
        JOIN koreader_documents k ON k.user_no = $1 AND (k.document = c.digest OR c.digest = ANY (k.aliases))
        ORDER BY c.ord, (k.document = c.digest) DESC, k.updated_at DESC, k.document
        LIMIT 1
        """;

    /// <summary>KOReader's part of a state, after <see cref="ReadingStateQueries.StateColumns"/>.</summary>
    public const string MarkColumns = "koreader_progress, koreader_percentage, koreader_device, koreader_device_id, " +
        "koreader_identifiers, koreader_at";

    /// <summary>$1 user_no, $2 book_no: as <see cref="ReadingStateQueries.Load"/>, then <see cref="MarkColumns"/>.</summary>
    public const string LoadBook = $"""
        SELECT EXISTS (SELECT 1 FROM users_books WHERE user_no = $1 AND book_no = $2 AND removed_at IS NULL),
               rs.percent, rs.location, rs.position_at, rs.status, rs.status_at, rs.time_spent_minutes, rs.statistics_at,
               rs.{MarkColumns}
        FROM users u
        LEFT JOIN reading_states rs ON rs.user_no = u.user_no AND rs.book_no = $2
        WHERE u.user_no = $1
        """;

    /// <summary>
    /// $1 user_no, $2 book_no, then the six <see cref="MarkColumns"/>. Runs after <see cref="ReadingStateQueries.Store"/> in its
    /// transaction.
    /// </summary>
    public const string StoreMark = """
        UPDATE reading_states SET koreader_progress = $3, koreader_percentage = $4, koreader_device = $5,
                                  koreader_device_id = $6, koreader_identifiers = $7, koreader_at = $8
        WHERE user_no = $1 AND book_no = $2
        """;

    /// <summary>
    /// $1 user_no, $2 document, $3 percentage, $4 progress, $5 device, $6 device_id, $7 identifiers, $8 aliases,
    /// $9 the most documents the user keeps. Stores the document and deletes the user's least recently written
    /// beyond the bound. Returns updated_at.
    /// </summary>
    public const string StoreDocument = """
        WITH stored AS (
            INSERT INTO koreader_documents AS k (user_no, document, percentage, progress, device, device_id, identifiers, aliases, updated_at)
            SELECT $1, $2, $3, $4, $5, $6, $7, $8, now() FROM users WHERE user_no = $1
            ON CONFLICT (user_no, document) DO UPDATE SET
                percentage = EXCLUDED.percentage, progress = EXCLUDED.progress, device = EXCLUDED.device,
                device_id = EXCLUDED.device_id, identifiers = EXCLUDED.identifiers, aliases = EXCLUDED.aliases,
                updated_at = EXCLUDED.updated_at
            RETURNING updated_at
        ), dropped AS (
            DELETE FROM koreader_documents
            WHERE user_no = $1 AND document IN (
                SELECT document FROM koreader_documents
                WHERE user_no = $1 AND document <> $2
                ORDER BY updated_at DESC, document
                OFFSET $9 - 1)
        )
        SELECT updated_at FROM stored
        """;
}
