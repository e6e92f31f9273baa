namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The purge of expired tombstones (<c>TombstonePurgeService</c>): deleted highlights and deleted
/// collections (their membership registers with them). Each statement takes $1 cutoff (tombstones
/// deleted, or for a collection last written, before it expire) and $2 batch size, deletes one batch
/// of expired tombstones, oldest first, skipping rows a device write holds locked (so the purge never
/// waits on device traffic, nor device traffic long on it), and raises each affected user's purge
/// horizon of that kind. Returns the number of tombstones deleted.
/// </summary>
public static class TombstoneQueries
{
    /// <summary>Also gives the users back the tombstones purged (<c>users.tombstone_count</c>, Sync:MaxTombstonesPerUser).</summary>
    public static readonly string PurgeHighlights = PurgeBatch(
        "highlights", "h", ["id"], null, "deleted_at", "highlights_seq", "tombstone_count");

    public static readonly string PurgeCollections =
        PurgeBatch("collections", "c", ["user_no", "collection_id"], "deleted", "updated_at", "collections_seq", null);

    /// <summary>
    /// The batch over <paramref name="table"/> (aliased <paramref name="alias"/>, rows named by <paramref name="keys"/>):
    /// the rows <paramref name="tombstone"/> (when given) whose <paramref name="expiresBy"/> is before $1.
    /// </summary>
    private static string PurgeBatch(string table, string alias, string[] keys, string? tombstone, string expiresBy, string horizon, string? counter) => $"""
        WITH expired AS (
            SELECT {string.Join(", ", keys)} FROM {table}
            WHERE {(tombstone is null ? "" : tombstone + " AND ")}{expiresBy} < $1
            ORDER BY {expiresBy}
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        ), purged AS (
            DELETE FROM {table} {alias} USING expired e
            WHERE {string.Join(" AND ", keys.Select(key => $"{alias}.{key} = e.{key}"))}
            RETURNING {alias}.user_no, {alias}.seq
        ), horizons AS (
            INSERT INTO sync_purge_horizons AS p (user_no, {horizon})
            SELECT user_no, max(seq) FROM purged GROUP BY user_no
            ON CONFLICT (user_no) DO UPDATE SET {horizon} = greatest(p.{horizon}, EXCLUDED.{horizon})
        ){(counter is null ? "" : $"""
        , counted AS (
            UPDATE users u SET {counter} = greatest(u.{counter} - n.purged, 0)
            FROM (SELECT user_no, count(*) AS purged FROM purged GROUP BY user_no) n
            WHERE u.user_no = n.user_no
        )
        """)}
        SELECT count(*)::int FROM purged
        """;
}
