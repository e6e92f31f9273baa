namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The user's change sequence: numbers taken for a write and where the sequence stands. Every write of a user's sync data starts with
/// <see cref="TakeChangeSeq"/>: the user's row lock it takes is held to commit, so a user's writes commit in the order of their sequence
/// numbers and a pull by "(seq, id) after the token" cannot skip one (see Migrations/0002_device_sync.sql).
/// </summary>
public static class ChangeSeqQueries
{
    /// <summary>
    /// $1 user_no, $2 how many numbers to reserve. Returns the last reserved number; no row when the user does not exist.
    /// </summary>
    public const string TakeChangeSeq = "UPDATE users SET change_seq = change_seq + $2 WHERE user_no = $1 RETURNING change_seq";

    /// <summary>
    /// <see cref="TakeChangeSeq"/> for a push, also returning what the user holds (highlight_count,
    /// highlight_bytes): read under the row lock the push holds to commit, so no other write of the
    /// user's can change them before this push's own change does.
    /// </summary>
    public const string TakeChangeSeqForHighlights =
        "UPDATE users SET change_seq = change_seq + $2 WHERE user_no = $1 RETURNING change_seq, highlight_count, highlight_bytes, " +
        "tombstone_count";

    /// <summary>
    /// Ends a write's transaction as the last statement of its last batch, so that the commit costs no
    /// round trip of its own (Npgsql follows the transaction's state from the server's answers).
    /// </summary>
    public const string Commit = "COMMIT";

    /// <summary>
    /// $1 user_no. Read before the change pages: every change numbered up to this value has committed,
    /// so the pages, read after, see all of them. No row when the user does not exist.
    /// </summary>
    public const string CommittedSeq = "SELECT change_seq FROM users WHERE user_no = $1";

    /// <summary>
    /// <see cref="CommittedSeq"/> on a standby (<c>Storage:ReadConnectionString</c>), with whether the
    /// standby lags: $1 user_no, $2 the lag allowed in milliseconds. Columns: change_seq, lagging. A
    /// standby lags when it streams from no one (no WAL receiver runs: it cannot know what it misses), or
    /// when WAL it has received waits to be replayed and the last commit it replayed is older than $2; one
    /// that streams and has replayed all it received does not. On the primary, lagging is false.
    /// </summary>
    public const string CommittedSeqOnStandby = """
        SELECT change_seq,
               pg_is_in_recovery()
               AND (NOT EXISTS (SELECT FROM pg_stat_wal_receiver)
                    OR (pg_last_wal_receive_lsn() IS DISTINCT FROM pg_last_wal_replay_lsn()
                        AND coalesce(pg_last_xact_replay_timestamp() < now() - $2 * interval '1 millisecond', true)))
        FROM users WHERE user_no = $1
        """;

    /// <summary>$1 user numbers. Columns: user_no, change_seq: where each user's change sequence stands now.</summary>
    public const string ChangeSeqs = "SELECT user_no, change_seq FROM users WHERE user_no = ANY($1)";
}
