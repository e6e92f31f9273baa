-- A highlight's optional Kobo location: where the passage sits in the device's rendering of the book.
-- Text, not jsonb: it is kept exactly as sent and returned byte for byte (jsonb would reorder keys and
-- rewrite numbers and escapes). It belongs to the range: range_at is its last-writer-wins clock, and a
-- tombstone clears it with the rest of the content.
ALTER TABLE highlights ADD COLUMN location text;

-- What each Kobo e-reader has sent of a book's annotations. An e-reader's annotation set for a book is
-- only ever replaced by the service's when the service knows that set: it has received annotations of
-- the book from that e-reader, and none that it could not hold (withheld_at, set for good: the e-reader
-- keeps those, and an answer without them would delete them). docs/kobo.md, "Never wiping a device".
-- reader is the e-reader's link key: "kobo:{user}/{linking device}/{16 hex digits of the secret's hash}".
CREATE TABLE kobo_annotation_books (
    user_no           bigint      NOT NULL,
    reader            text        NOT NULL,
    book_no           bigint      NOT NULL,
    first_received_at timestamptz NOT NULL DEFAULT now(),
    withheld_at       timestamptz,
    PRIMARY KEY (user_no, reader, book_no)
);
