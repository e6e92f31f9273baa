namespace Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;

/// <summary>The statements of Kobo links (Migrations/0005_kobo_links.sql): create, find, revoke with the device.</summary>
internal static class KoboLinkQueries
{
    /// <summary>The most live links one device keeps: a newer one revokes the oldest beyond it.</summary>
    public const int MaxLiveLinksPerDevice = 5;

    /// <summary>
    /// $1 user_no, $2 device_id. Makes the device known (as its first pull would) so that revoking it
    /// finds it; a device already known is left as it is. Runs after <see cref="SyncQueries.LockUserDevices"/>
    /// and <see cref="SyncQueries.MakeRoomForDevice"/>, as adding a device does.
    /// </summary>
    public const string EnsureDevice = """
        INSERT INTO devices (user_no, device_id)
        SELECT $1, $2 FROM users WHERE user_no = $1
        ON CONFLICT (user_no, device_id) DO NOTHING
        """;

    /// <summary>$1 user_no, $2 device_id, $3 secret_hash. Returns created_at; no row when the user does not exist.</summary>
    public const string Create = """
        INSERT INTO kobo_links (secret_hash, user_no, device_id)
        SELECT $3, $1, $2 FROM users WHERE user_no = $1
        RETURNING created_at
        """;

    /// <summary>$1 user_no, $2 device_id. Revokes the device's live links beyond the newest <see cref="MaxLiveLinksPerDevice"/>.</summary>
    public static readonly string RevokeOldest = $"""
        UPDATE kobo_links SET revoked_at = now()
        WHERE secret_hash IN (
            SELECT secret_hash FROM kobo_links
            WHERE user_no = $1 AND device_id = $2 AND revoked_at IS NULL
            ORDER BY created_at DESC, secret_hash
            OFFSET {MaxLiveLinksPerDevice})
        """;

    /// <summary>$1 user_no, $2 device_id. A linked e-reader's sync counts as its linking device's: no row changed when the device is not known.</summary>
    public const string TouchDevice = "UPDATE devices SET last_sync_at = now() WHERE user_no = $1 AND device_id = $2";

    /// <summary>$1 secret_hash. Columns: user_no, device_id, created_at, revoked_at.</summary>
    public const string Find = "SELECT user_no, device_id, created_at, revoked_at FROM kobo_links WHERE secret_hash = $1";

    /// <summary>
    /// $1 user_no, $2 device_id. Runs in the device revocation's batch, after <see cref="SyncQueries.RevokeDevice"/>:
    /// every link of the device created up to its revocation is revoked for good.
    /// </summary>
    public const string RevokeWithDevice = """
        UPDATE kobo_links l SET revoked_at = d.revoked_at
        FROM devices d
        WHERE d.user_no = $1 AND d.device_id = $2 AND d.revoked_at IS NOT NULL
          AND l.user_no = $1 AND l.device_id = $2 AND l.revoked_at IS NULL AND l.created_at <= d.revoked_at
        """;
}
