-- Storage parameters of the large tables, applied by the simulator's seed before it loads them
-- (fill factor applies to pages written after it is set). They belong in a migration of the service
-- once confirmed at 10 M users; until then the seed sets them so the measured data set has them.

-- users: every write of a user's sync data updates change_seq, highlight_count and highlight_bytes,
-- none of them indexed, so the update can be HOT (no index entry) when the page has room for the new
-- version. 10% free space holds several versions of each row of a page until vacuum prunes them.
ALTER TABLE users SET (fillfactor = 90, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- highlights, users_books: an update changes seq, which is indexed (the delta pull), so it is never
-- HOT and free space would only cost disk and cache: fill factor stays 100. Vacuum and analyze after
-- 1% of changed rows (0.7 M at 70 M rows) instead of 20% (14 M).
ALTER TABLE highlights SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE users_books SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);

-- reading_states: updated in place often (position), but seq is indexed too: fill factor 100, and the
-- same scale factors as the other per-user tables.
ALTER TABLE reading_states SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
