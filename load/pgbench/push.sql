-- A one-change device push as the service runs it (PostgresSyncStore.ApplyAsync): take the user's
-- change sequence (its row lock, held to commit), lock the highlight, store it with the new number.
-- notify-cost.sh runs it as is and with :notify = 1, which adds the service's pg_notify of live pull.
\set u random(1, :users)
\set k random(1, 100000)
BEGIN;
UPDATE users SET change_seq = change_seq + 1 WHERE user_no = :u RETURNING change_seq;
SELECT id FROM highlights WHERE id = 'highlights/users' || :u || '-ebooks/7/b' || :k FOR UPDATE;
INSERT INTO highlights (id, user_no, book_no, text, start, length, color, created_at, modified_at, seq, version)
VALUES ('highlights/users' || :u || '-ebooks/7/b' || :k, :u, 7, 'pushed', 1, 6, 'yellow', now(), now(), 1, 1)
ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, version = highlights.version + 1, modified_at = now();
\if :notify
SELECT pg_notify('kobo_sync_changes_v1', :u || ' 1 ' || floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
\endif
COMMIT;
