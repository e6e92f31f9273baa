-- Collections: a user's named sets of books (shelves on the web, tags on a Kobo e-reader). The id is a
-- UUID the client chose (so a retried create is idempotent; the Kobo front chooses one for a device).
-- Devices edit them concurrently, so each part is a last-writer-wins register with the device time of
-- its last accepted write (clamped), as the conflict rule says (src/Domain/Collections/CollectionRules.cs):
-- the name (name, name_at), the liveness (deleted, deleted_at: the time of the last create, rename or
-- delete, whichever the collection is now), and one membership register per book (collection_books).
--
-- A write takes the user's change sequence exactly as a highlight push does (the comment at the top of
-- 0002_device_sync.sql) and stamps each collection it changes with a number of it, so collections join
-- the delta pull as a fourth stream keyed (seq, collection_id), and a pull can never skip a write that
-- committed late. A deleted collection stays as a tombstone (with its registers), so a stale device's
-- rename or add cannot bring it back, until the tombstone purge removes it after Sync:TombstoneRetentionDays
-- (counted from its last write) and raises the user's collections purge horizon: a sync token older than
-- it gets 410 (a Kobo e-reader a full sync), as for highlights.

CREATE TABLE collections (
    user_no       bigint      NOT NULL,
    collection_id uuid        NOT NULL,
    -- 1 to 256 UTF-16 code units, checked by the service.
    name          text        NOT NULL,
    -- Device time of the name's last write.
    name_at       timestamptz NOT NULL,
    deleted       boolean     NOT NULL DEFAULT false,
    -- Device time of the live/deleted register's last write.
    deleted_at    timestamptz NOT NULL,
    -- Server time of creation, and the change sequence number of the creating write (a Kobo sync tells
    -- a new tag from a changed one by it).
    created_at    timestamptz NOT NULL DEFAULT now(),
    created_seq   bigint      NOT NULL,
    -- The latest device time of any register, membership included: what devices see as modifiedAt.
    modified_at   timestamptz NOT NULL,
    seq           bigint      NOT NULL,
    -- Server time of the last write.
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_no, collection_id)
);

-- The delta pull: a user's collection changes in (seq, collection_id) order, a keyset scan whatever the page.
CREATE INDEX collections_changes ON collections (user_no, seq, collection_id);

CREATE TABLE collection_books (
    user_no       bigint      NOT NULL,
    collection_id uuid        NOT NULL,
    book_no       bigint      NOT NULL,
    -- Added (true) or removed (false): a removal is kept, so an older add of another device loses to it.
    present       boolean     NOT NULL,
    -- Device time of the last add or remove.
    at            timestamptz NOT NULL,
    PRIMARY KEY (user_no, collection_id, book_no),
    FOREIGN KEY (user_no, collection_id) REFERENCES collections (user_no, collection_id) ON DELETE CASCADE
);

-- The tombstone purge: deleted collections by the server time of their last write.
CREATE INDEX collections_tombstones ON collections (updated_at) WHERE deleted;

ALTER TABLE sync_purge_horizons ADD COLUMN collections_seq bigint NOT NULL DEFAULT 0;
