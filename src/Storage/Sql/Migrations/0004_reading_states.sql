-- Reading states: per user and book, where the reader is (percent and an opaque location), what the
-- book is to them (status) and how long they have read it (time spent). Devices write the three groups
-- independently, so each keeps its own device time (clamped), the last-writer-wins clock of the
-- conflict rule (src/Domain/ReadingStates/ReadingStateRules.cs). A group never written is null.
--
-- A write takes the user's change sequence exactly as a highlight push does (the comment at the top of
-- 0002_device_sync.sql): UPDATE users SET change_seq = change_seq + 1 ... RETURNING, holding the user's
-- row lock to commit, and stamps the row with that number. So reading states join the same delta pull,
-- as a third stream keyed (seq, book_no), and a pull can never skip a write that committed late.

CREATE TABLE reading_states (
    user_no            bigint           NOT NULL,
    book_no            bigint           NOT NULL,
    percent            double precision CHECK (percent >= 0 AND percent <= 100),
    -- As the device sent it, returned exactly (at most 2,048 UTF-16 code units, checked by the service).
    location           text,
    position_at        timestamptz,
    status             text             CHECK (status IN ('ready', 'reading', 'finished')),
    status_at          timestamptz,
    time_spent_minutes integer          CHECK (time_spent_minutes >= 0),
    statistics_at      timestamptz,
    seq                bigint           NOT NULL,
    -- Server time of the last write.
    updated_at         timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (user_no, book_no),
    -- A group is whole or absent: its value and its time together.
    CHECK ((percent IS NULL) = (position_at IS NULL) AND (location IS NULL OR percent IS NOT NULL)),
    CHECK ((status IS NULL) = (status_at IS NULL)),
    CHECK ((time_spent_minutes IS NULL) = (statistics_at IS NULL))
);

-- The delta pull: a user's reading state changes in (seq, book_no) order, a keyset scan whatever the page.
CREATE INDEX reading_states_changes ON reading_states (user_no, seq, book_no);
