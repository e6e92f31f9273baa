-- KOReader's progress sync (docs/koreader.md).
--
-- koreader_credentials: a user's KOReader logins, made by one of the user's devices (bearer token) as a
-- Kobo link is, and revoked with that device. The device sends the MD5 of the password as its key on every
-- call; only a PBKDF2-SHA256 hash of that key is stored (key_hash: 'pbkdf2-sha256$iterations$salt$hash').
CREATE TABLE koreader_credentials (
    username   text        PRIMARY KEY,
    user_no    bigint      NOT NULL,
    device_id  text        NOT NULL,
    key_hash   text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE INDEX koreader_credentials_device ON koreader_credentials (user_no, device_id);

-- The KOReader digests of a book file, stated by the catalogue beside its book_files row and loaded as
-- book files are: 'content' (KOReader's partial MD5 of the file's bytes), 'structure' (the MD5 of the
-- EPUB's identifier and spine) and 'filename' (the MD5 of the file's name). Lower-case hex.
CREATE TABLE book_file_digests (
    book_no bigint NOT NULL,
    format  text   NOT NULL,
    kind    text   NOT NULL CHECK (kind IN ('content', 'structure', 'filename')),
    digest  text   NOT NULL CHECK (digest ~ '^[0-9a-f]{32}$'),
    PRIMARY KEY (book_no, format, kind),
    FOREIGN KEY (book_no, format) REFERENCES book_files (book_no, format) ON DELETE CASCADE
);

-- A device's document digest finds its books.
CREATE INDEX book_file_digests_digest ON book_file_digests (digest);

-- KOReader's own part of a book's position: its progress string (an XPointer or a page number), the
-- fraction it sent, its device and device id, the identifiers it sent with them, and koreader_at, the
-- position_at its write was stored with. While position_at = koreader_at the position is KOReader's;
-- a later write by a Kobo e-reader or an app moves position_at and leaves these as they were.
ALTER TABLE reading_states
    ADD COLUMN koreader_progress    text,
    ADD COLUMN koreader_percentage  double precision,
    ADD COLUMN koreader_device      text,
    ADD COLUMN koreader_device_id   text,
    ADD COLUMN koreader_identifiers text,
    ADD COLUMN koreader_at          timestamptz;

-- Documents that map to no owned book, kept per user as the reference server keeps them, so KOReader
-- devices sync them with each other. aliases are the other digests its last writer sent, by which a
-- copy that cannot compute the document's own digest still finds it. Bounded per user: a new document
-- beyond the bound replaces the least recently written.
CREATE TABLE koreader_documents (
    user_no     bigint           NOT NULL,
    document    text             NOT NULL,
    percentage  double precision NOT NULL,
    progress    text             NOT NULL,
    device      text             NOT NULL,
    device_id   text,
    identifiers text,
    aliases     text[]           NOT NULL DEFAULT '{}',
    updated_at  timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (user_no, document)
);
