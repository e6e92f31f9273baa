using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The statements of collections (Migrations/0009_collections.sql). A write starts with
/// <see cref="ChangeSeqQueries.TakeChangeSeq"/>, as every write of a user's sync data does: the user's row lock
/// it holds to commit serialises the user's collection writes, so what the write reads after it cannot
/// change before it commits (no row locks of their own needed).
/// </summary>
public static class CollectionQueries
{
    /// <summary>
    /// The columns of a collection as devices see it, in this order: id, name, deleted, created_at, modified_at, books, created_seq.
    /// </summary>
    private const string ViewColumns = """
        c.collection_id, c.name, c.deleted, c.created_at, c.modified_at,
        CASE WHEN c.deleted THEN '{}'::bigint[] ELSE coalesce(
            (SELECT array_agg(b.book_no ORDER BY b.book_no) FROM collection_books b
             WHERE b.user_no = c.user_no AND b.collection_id = c.collection_id AND b.present), '{}') END,
        c.created_seq
        """;

    /// <summary>
    /// $1 user_no, $2 ids. Locks the rows, so the purge (which skips locked rows) cannot remove a tombstone
    /// a push is deciding on. Columns: collection_id, name, name_at, deleted, deleted_at, created_at.
    /// </summary>
    public const string LoadForWrite = """
        SELECT collection_id, name, name_at, deleted, deleted_at, created_at
        FROM collections
        WHERE user_no = $1 AND collection_id = ANY($2)
        FOR UPDATE
        """;

    /// <summary>$1 user_no, $2 ids. Every membership register of those collections. Columns: collection_id, book_no, present, at.</summary>
    public const string LoadBooksForWrite = """
        SELECT collection_id, book_no, present, at
        FROM collection_books
        WHERE user_no = $1 AND collection_id = ANY($2)
        """;

    /// <summary>$1 user_no. The user's live collections, for the bound.</summary>
    public const string LiveCount = "SELECT count(*) FILTER (WHERE NOT deleted)::int, count(*)::int FROM collections WHERE user_no = $1";

    /// <summary>$1 user_no, $2 book numbers. Those the user has or had in their library.</summary>
    public const string OwnedBooks = "SELECT book_no FROM users_books WHERE user_no = $1 AND book_no = ANY($2)";

    /// <summary>
    /// $1 user_no, $2 collection_id, $3 name, $4 name_at, $5 deleted, $6 deleted_at, $7 modified_at, $8 seq,
    /// $9 created_at. Stores the decided collection; a new one is created with this seq as its created_seq
    /// (and the server time the decision gave it, so the push's answer and later reads agree).
    /// </summary>
    public const string Store = """
        INSERT INTO collections AS c (user_no, collection_id, name, name_at, deleted, deleted_at, created_at, created_seq, modified_at, seq)
        VALUES ($1, $2, $3, $4, $5, $6, $9, $8, $7, $8)
        ON CONFLICT (user_no, collection_id) DO UPDATE SET
            name = EXCLUDED.name, name_at = EXCLUDED.name_at, deleted = EXCLUDED.deleted, deleted_at = EXCLUDED.deleted_at,
            modified_at = EXCLUDED.modified_at, seq = EXCLUDED.seq, updated_at = now()
        """;

    /// <summary>
    /// $1 user_no, $2 collection_id, then one array per column: $3 book_no, $4 present, $5 at. Stores the changed membership registers.
    /// </summary>
    public const string StoreBooks = """
        INSERT INTO collection_books AS b (user_no, collection_id, book_no, present, at)
        SELECT $1, $2, r.book_no, r.present, r.at
        FROM unnest($3::bigint[], $4::bool[], $5::timestamptz[]) AS r(book_no, present, at)
        ON CONFLICT (user_no, collection_id, book_no) DO UPDATE SET present = EXCLUDED.present, at = EXCLUDED.at
        """;

    /// <summary>
    /// $1 user_no, $2 seq, $3 collection_id (the position, exclusive), $4 limit, $5 the page's byte budget:
    /// the delta pull's fourth stream, a keyset scan of collections_changes. As <see cref="HighlightSyncQueries.HighlightChanges"/>
    /// cuts highlights, of those rows only the first two and then each whose predecessors measure at most
    /// $5 together keep going, each measured as <c>CollectionSync.SizeOf</c> measures a collection at most
    /// (<see cref="PageBudget.ItemOverheadBytes"/>, the UTF-8 name, <see cref="CollectionSync.BytesPerBook"/>
    /// per present book): the book lists of collections a page cannot send are never built. A caller whose own
    /// measure is not smaller than this one, and whose budget is not larger than $5, gets every row its page
    /// can take. Columns: seq, then the view's.
    /// </summary>
    public static readonly string Changes = $$"""
        SELECT s.seq, {{ViewColumns}}
        FROM (
            SELECT seq, collection_id, size, row_number() OVER w AS n, sum(size) OVER w AS through
            FROM (
                SELECT c.seq, c.collection_id,
                       {{PageBudget.ItemOverheadBytes}} + octet_length(c.name) + CASE WHEN c.deleted THEN 0 ELSE {{CollectionSync.BytesPerBook}} * (
                           SELECT count(*) FROM collection_books b
                           WHERE b.user_no = c.user_no AND b.collection_id = c.collection_id AND b.present) END AS size
                FROM collections c
                WHERE c.user_no = $1 AND (c.seq, c.collection_id) > ($2, $3)
                ORDER BY c.seq, c.collection_id
                LIMIT $4
            ) page
            WINDOW w AS (ORDER BY seq, collection_id ROWS UNBOUNDED PRECEDING)
        ) s
        JOIN collections c ON c.user_no = $1 AND c.collection_id = s.collection_id
        WHERE s.n <= 2 OR s.through - s.size <= $5
        ORDER BY s.seq, s.collection_id
        """;

    /// <summary>
    /// $1 user_no, $2 collection_id (exclusive; null: from the first), $3 limit. No row when the user does
    /// not exist; one row with a null id when no collection follows. Columns: the view's.
    /// </summary>
    public const string List = "SELECT " + ViewColumns + """

        FROM users u
        LEFT JOIN collections c ON c.user_no = u.user_no AND NOT c.deleted AND ($2::uuid IS NULL OR c.collection_id > $2)
        WHERE u.user_no = $1
        ORDER BY c.collection_id
        LIMIT $3
        """;

    /// <summary>
    /// $1 user_no, $2 collection_id. No row when the user does not exist; a null id when the collection does not. Columns: the view's.
    /// </summary>
    public const string Get = "SELECT " + ViewColumns + """

        FROM users u
        LEFT JOIN collections c ON c.user_no = u.user_no AND c.collection_id = $2
        WHERE u.user_no = $1
        """;

    /// <summary>
    /// $1 user_no. Read after the change pages, as the highlights' horizon: the purged collection tombstones' highest seq (0 when none).
    /// </summary>
    public const string PurgeHorizon = "SELECT coalesce((SELECT collections_seq FROM sync_purge_horizons WHERE user_no = $1), 0)";

    /// <summary>$1 user_no, $2 name. The live collection of that name, the first by id.</summary>
    public const string FindLiveByName = """
        SELECT collection_id FROM collections WHERE user_no = $1 AND name = $2 AND NOT deleted ORDER BY collection_id LIMIT 1
        """;
}
