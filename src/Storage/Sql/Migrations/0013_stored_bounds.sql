-- Everything a user's devices can make the database keep counts against a bound: tombstones too.
-- users.tombstone_count is the user's deleted highlights kept until the purge (Sync:MaxTombstonesPerUser),
-- changed in the transaction of every push beside highlight_count and highlight_bytes, and lowered by the
-- purge. Collections are bounded by the rows the service reads under the push's lock (live and deleted,
-- Sync:MaxStoredCollectionsPerUser; a collection's registers, Sync:MaxBookRegistersPerCollection).

ALTER TABLE users ADD COLUMN tombstone_count bigint NOT NULL DEFAULT 0;

UPDATE users u SET tombstone_count = t.n
FROM (SELECT user_no, count(*) AS n FROM highlights WHERE deleted_at IS NOT NULL GROUP BY user_no) t
WHERE u.user_no = t.user_no;
