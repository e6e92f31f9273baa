namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of Kobo links (Migrations/0005_kobo_links.sql, 0007_kobo_link_bounds.sql): create,
/// find, list, revoke, and the bounds that keep a user's rows few.
/// </summary>
public static class KoboLinkQueries
{
    /// <summary>The most live links one device keeps: a newer one revokes the oldest beyond it.</summary>
    public const int MaxLiveLinksPerDevice = 5;

    /// <summary>The most live links one user keeps, over all their devices: a newer one revokes the oldest beyond it.</summary>
    public const int MaxLiveLinksPerUser = 20;

    /// <summary>The most revoked links kept per user (for the user's list); older ones are deleted when a link is made.</summary>
    public const int MaxRevokedLinksPerUser = 20;

    /// <summary>The most rows a user can hold, so one page of the list holds them all.</summary>
    public const int MaxLinksPerUser = MaxLiveLinksPerUser + MaxRevokedLinksPerUser;

    /// <summary>The key that tags link secrets (Migrations/0012_kobo_link_key.sql).</summary>
    public const string SecretKey = "SELECT secret_key FROM kobo_link_keys WHERE id = 1";

    /// <summary>
    /// A link's public handle: the first bytes of the SHA-256 of its secret's hash, in hex. It names the
    /// link for listing and revoking, and says nothing about the secret or its stored hash.
    /// </summary>
    public const string LinkId = "encode(substring(sha256(secret_hash) FROM 1 FOR 8), 'hex')";

    /// <summary>
    /// $1 user_no, $2 device_id. Makes the device known (as its first pull would) so that revoking it
    /// finds it; a device already known is left as it is. Runs after <see cref="DeviceQueries.LockUserDevices"/>
    /// and <see cref="DeviceQueries.MakeRoomForDevice"/>, as adding a device does.
    /// </summary>
    public const string EnsureDevice = """
        INSERT INTO devices (user_no, device_id)
        SELECT $1, $2 FROM users WHERE user_no = $1
        ON CONFLICT (user_no, device_id) DO NOTHING
        """;

    /// <summary>
    /// $1 user_no, $2 device_id, $3 secret_hash, $4 the earliest revocation that refuses the asking token
    /// (its iat less the clock skew, whole seconds; null: none does). One row: whether the device's
    /// revocation refuses the token, and the new link's created_at (null when refused or when the user
    /// does not exist). Runs under the user's device lock, as a revocation does: whichever commits
    /// first, the other sees it.
    /// </summary>
    public const string Create = """
        WITH refused AS (
            SELECT EXISTS (SELECT 1 FROM devices WHERE user_no = $1 AND device_id = $2 AND revoked_at >= $4) AS revoked
        ), created AS (
            INSERT INTO kobo_links (secret_hash, user_no, device_id)
            SELECT $3, $1, $2 FROM users, refused WHERE users.user_no = $1 AND NOT refused.revoked
            RETURNING created_at
        )
        SELECT (SELECT revoked FROM refused) AS revoked, (SELECT created_at FROM created) AS created_at
        """;

    /// <summary>
    /// $1 user_no. Revokes the user's live links beyond the newest <see cref="MaxLiveLinksPerDevice"/> of
    /// a device and the newest <see cref="MaxLiveLinksPerUser"/> of the user. Returns their secret_hash.
    /// </summary>
    public static readonly string RevokeBeyondBounds = $"""
        UPDATE kobo_links SET revoked_at = now()
        WHERE user_no = $1 AND revoked_at IS NULL AND secret_hash IN (
            SELECT secret_hash FROM (
                SELECT secret_hash,
                       row_number() OVER (PARTITION BY device_id ORDER BY created_at DESC, secret_hash) AS in_device,
                       row_number() OVER (ORDER BY created_at DESC, secret_hash) AS in_user
                FROM kobo_links WHERE user_no = $1 AND revoked_at IS NULL) ranked
            WHERE in_device > {MaxLiveLinksPerDevice} OR in_user > {MaxLiveLinksPerUser})
        RETURNING secret_hash
        """;

    /// <summary>$1 user_no. Deletes the user's revoked links beyond the newest <see cref="MaxRevokedLinksPerUser"/>.</summary>
    public static readonly string DropOldestRevoked = $"""
        DELETE FROM kobo_links
        WHERE user_no = $1 AND secret_hash IN (
            SELECT secret_hash FROM kobo_links
            WHERE user_no = $1 AND revoked_at IS NOT NULL
            ORDER BY revoked_at DESC, secret_hash
            OFFSET {MaxRevokedLinksPerUser})
        """;

    /// <summary>$1 secret_hash. Columns: user_no, device_id, created_at, revoked_at.</summary>
    public const string Find = "SELECT user_no, device_id, created_at, revoked_at FROM kobo_links WHERE secret_hash = $1";

    /// <summary>
    /// $1 user_no. The user's links, newest first, at most <see cref="MaxLinksPerUser"/> (all of them).
    /// The first row says whether the user exists; link rows follow with: id, device_id, created_at, revoked_at.
    /// </summary>
    public static readonly string List = $"""
        SELECT NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, EXISTS (SELECT 1 FROM users WHERE user_no = $1)
        UNION ALL
        (SELECT {LinkId}, device_id, created_at, revoked_at, true
         FROM kobo_links WHERE user_no = $1
         ORDER BY created_at DESC, secret_hash
         LIMIT {MaxLinksPerUser})
        """;

    /// <summary>
    /// $1 user_no, $2 link id (8 bytes). Revokes the user's link of that id; a revoked one keeps its time.
    /// Columns: secret_hash, whether this call revoked it. No row: no such link of the user.
    /// </summary>
    public static readonly string Revoke = $"""
        WITH target AS (
            SELECT secret_hash, revoked_at FROM kobo_links
            WHERE user_no = $1 AND substring(sha256(secret_hash) FROM 1 FOR 8) = $2
        ), revoked AS (
            UPDATE kobo_links l SET revoked_at = now()
            FROM target t WHERE l.secret_hash = t.secret_hash AND t.revoked_at IS NULL
            RETURNING l.secret_hash
        )
        SELECT secret_hash, secret_hash IN (SELECT secret_hash FROM revoked) FROM target
        """;

    /// <summary>$1 since. The links revoked since then (every instance evicts them from its cache): secret_hash, revoked_at.</summary>
    public const string RevokedSince = "SELECT secret_hash, revoked_at FROM kobo_links WHERE revoked_at >= $1";

    /// <summary>$1 cutoff, $2 batch size. Deletes revoked links revoked before the cutoff, one batch; returns how many.</summary>
    public const string PurgeRevoked = """
        WITH lapsed AS (
            SELECT secret_hash FROM kobo_links
            WHERE revoked_at < $1
            ORDER BY revoked_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        ), purged AS (
            DELETE FROM kobo_links l USING lapsed WHERE l.secret_hash = lapsed.secret_hash
            RETURNING 1
        )
        SELECT count(*)::int FROM purged
        """;

    /// <summary>
    /// $1 user_no, $2 device_id. Runs in the device revocation's batch, after <see cref="DeviceQueries.RevokeDevice"/>:
    /// every link of the device created up to its revocation is revoked for good.
    /// </summary>
    public const string RevokeWithDevice = """
        UPDATE kobo_links l SET revoked_at = d.revoked_at
        FROM devices d
        WHERE d.user_no = $1 AND d.device_id = $2 AND d.revoked_at IS NOT NULL
          AND l.user_no = $1 AND l.device_id = $2 AND l.revoked_at IS NULL AND l.created_at <= d.revoked_at
        """;
}
