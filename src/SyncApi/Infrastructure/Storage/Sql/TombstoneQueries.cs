namespace Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;

/// <summary>The purge of expired highlight tombstones (<c>TombstonePurgeService</c>).</summary>
internal static class TombstoneQueries
{
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
}
