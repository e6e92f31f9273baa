-- highlights-by-user-and-book, first page of 10 (+1 to tell whether more follow): the service's statement
-- (Queries.ListHighlights) with the book's key range ('highlights/users<u>-ebooks/<b>/' up to the same
-- with the last character raised: '/' + 1 = '0'), every call a random user of 1..:users and the first
-- book they own. pgbench cannot draw a user and book pair from a list, so the book is looked up first
-- (one primary-key probe of users_books, which the service does not run: it adds a little to
-- PostgreSQL's CPU per transaction); a user who owns no book gets book 0, an empty page.
\set u random(1, :users)
SELECT coalesce(min(book_no), 0) AS b FROM users_books WHERE user_no = :u \gset
SELECT h.id, h.book_no, h.text, h.start, h.length, h.color, h.note, h.created_at, h.modified_at, h.location
FROM users u
LEFT JOIN LATERAL (
    SELECT id, book_no, text, start, length, color, note, created_at, modified_at, location
    FROM highlights
    WHERE id > 'highlights/users' || :u || '-ebooks/' || :b || '/' AND id < 'highlights/users' || :u || '-ebooks/' || :b || '0'
      AND user_no + 0 = u.user_no AND deleted_at IS NULL
    ORDER BY id
    LIMIT 11
) h ON true
WHERE u.user_no = :u;
