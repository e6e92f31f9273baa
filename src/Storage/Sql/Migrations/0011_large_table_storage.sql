-- Storage parameters of the tables that grow with the users (measured at 10 M users, docs/postgres.md).
-- A fill factor shapes the pages written after it is set: on a fresh database that is every page; a
-- database that already holds data keeps its old pages until VACUUM FULL or pg_repack rewrites them.

-- users: every push updates change_seq, highlight_count and highlight_bytes, none of them indexed, so
-- the update is HOT (no new index entry) when the row's page has room for the new version. 10% free
-- space holds a new version of each row of a page until pruning frees the old one.
ALTER TABLE users SET (fillfactor = 90, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- highlights, users_books, reading_states: an update changes seq, which is indexed (the delta pull), so
-- it is never HOT and free space would only cost disk and cache: fill factor stays 100. Vacuum and
-- analyze after 1% of changed rows (0.7 M at 70 M rows) instead of the default 20% (14 M).
ALTER TABLE highlights SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE users_books SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE reading_states SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
