-- highlights-by-user, first page of 10 (+1 to tell whether more follow): the service's statement
-- (Queries.ListHighlights) with the user's key range, every call a random user of 1..:users.
\set u random(1, :users)
SELECT h.id, h.book_no, h.text, h.start, h.length, h.color, h.note, h.created_at, h.modified_at, h.location
FROM users u
LEFT JOIN LATERAL (
    SELECT id, book_no, text, start, length, color, note, created_at, modified_at, location
    FROM highlights
    WHERE id > 'highlights/users' || :u || '-' AND id < 'highlights/users' || :u || '.' AND user_no + 0 = u.user_no AND deleted_at IS NULL
    ORDER BY id
    LIMIT 11
) h ON true
WHERE u.user_no = :u;
