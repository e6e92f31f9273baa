-- The book files the content origin serves, per book and format, with their byte sizes: what a
-- Kobo e-reader is told to download (its DownloadUrls carry the format and the size). Loaded with
-- the catalogue by whoever loads it (the demo seeder for the demo data); the service never asks the
-- origin, so a library sync page of 100 books costs no call to it. A book without a row has no file
-- to download. Formats are the Kobo store's names: KEPUB (the origin's {bookNo}.kepub.epub) and
-- EPUB3 (its {bookNo}.epub).

CREATE TABLE book_files (
    book_no bigint NOT NULL,
    format  text   NOT NULL CHECK (format IN ('KEPUB', 'EPUB3')),
    size    bigint NOT NULL CHECK (size > 0),
    PRIMARY KEY (book_no, format)
);
