-- Device sync: versions, per-field edit times, tombstones and a per-user change sequence.
--
-- Every write of a user's sync data first increments users.change_seq (UPDATE ... RETURNING) and
-- stamps the rows it writes with the values it got. That UPDATE holds the user's row lock until the
-- transaction ends, so two writes of one user never overlap: the later one gets higher numbers and
-- commits later. A pull that has seen change n of a user has therefore seen every change below n,
-- and "changes after (seq, id)" can never skip a transaction that committed late.
-- Rows written before this migration, or bulk-loaded by the demo seeder, keep seq 0: a first sync
-- delivers them before everything else, in id order.

ALTER TABLE users ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;

-- A tombstone keeps the id, the book, the version and the times; its content is cleared.
ALTER TABLE highlights
    ALTER COLUMN text DROP NOT NULL,
    ALTER COLUMN start DROP NOT NULL,
    ALTER COLUMN length DROP NOT NULL,
    ALTER COLUMN color DROP NOT NULL,
    ADD COLUMN seq        bigint NOT NULL DEFAULT 0,
    ADD COLUMN version    bigint NOT NULL DEFAULT 1,
    -- Server time of the deletion (the retention clock); null for a live highlight.
    ADD COLUMN deleted_at timestamptz,
    -- Device time (clamped) of the last accepted edit of each field; null means modified_at.
    ADD COLUMN text_at    timestamptz,
    ADD COLUMN range_at   timestamptz,
    ADD COLUMN color_at   timestamptz,
    ADD COLUMN note_at    timestamptz;

-- The delta pull: a user's changes in (seq, id) order, a keyset scan whatever the page number.
CREATE INDEX highlights_changes ON highlights (user_no, seq, id);

-- The tombstone purge finds expired tombstones without scanning live highlights.
CREATE INDEX highlights_tombstones ON highlights (deleted_at) WHERE deleted_at IS NOT NULL;

-- Ownership changes reach devices through the same pull, as entitlements. A removed ownership
-- stays as a row with removed_at set, so devices learn of the removal.
ALTER TABLE users_books
    ADD COLUMN seq         bigint NOT NULL DEFAULT 0,
    ADD COLUMN modified_at timestamptz,
    ADD COLUMN removed_at  timestamptz;

CREATE INDEX users_books_changes ON users_books (user_no, seq, book_no);

-- The highest seq of a purged tombstone per user: a sync token from before it may have missed a
-- deletion, so it is refused and the device starts a full sync.
CREATE TABLE sync_purge_horizons (
    user_no        bigint PRIMARY KEY,
    highlights_seq bigint NOT NULL DEFAULT 0
);
