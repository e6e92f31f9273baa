-- A highlight's optional Kobo location: where the passage sits in the device's rendering of the book.
-- Text, not jsonb: it is kept exactly as sent and returned byte for byte (jsonb would reorder keys and
-- rewrite numbers and escapes). It belongs to the range: range_at is its last-writer-wins clock, and a
-- tombstone clears it with the rest of the content.
ALTER TABLE highlights ADD COLUMN location text;

-- What each Kobo device has sent of a book's annotations. A device's annotation set for a book is only
-- ever replaced by the service's when the service knows that set: it has received annotations of the
-- book from that device, and none that it could not hold (withheld_at, set for good: the device keeps
-- those, and an answer without them would delete them). docs/kobo.md, "Never wiping a device".
CREATE TABLE kobo_annotation_books (
    user_no           bigint      NOT NULL,
    device_id         text        NOT NULL,
    book_no           bigint      NOT NULL,
    first_received_at timestamptz NOT NULL DEFAULT now(),
    withheld_at       timestamptz,
    PRIMARY KEY (user_no, device_id, book_no)
);
