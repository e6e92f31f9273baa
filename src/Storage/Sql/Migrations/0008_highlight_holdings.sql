-- What each user holds of highlights, for the per-user quota (Sync:MaxHighlightsPerUser,
-- Sync:MaxHighlightBytesPerUser): live highlights and the UTF-8 bytes of their text, note and location.
-- Every push changes them in its own transaction, under the user's row lock it already takes for the
-- change sequence, so the quota check reads two numbers instead of counting rows. The seeders, which
-- load highlights with COPY, count them once after loading.
ALTER TABLE users
    ADD COLUMN highlight_count bigint NOT NULL DEFAULT 0,
    ADD COLUMN highlight_bytes bigint NOT NULL DEFAULT 0;

UPDATE users u SET highlight_count = h.count, highlight_bytes = h.bytes
FROM (
    SELECT user_no, count(*) AS count,
           sum(octet_length(text) + coalesce(octet_length(note), 0) + coalesce(octet_length(location), 0)) AS bytes
    FROM highlights
    WHERE deleted_at IS NULL
    GROUP BY user_no
) h
WHERE u.user_no = h.user_no;
