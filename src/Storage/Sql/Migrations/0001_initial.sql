-- Users, the catalogue, ownership and highlights.
-- Highlight ids lead with the owner and the book (highlights/users{u}-ebooks/{b}/{key}) and sort
-- in byte order (COLLATE "C"), so "a user's highlights" and "a user's highlights in one book" are
-- range scans of the primary key: no other index is needed for the device reads.

CREATE TABLE users (
    user_no    bigint      PRIMARY KEY,
    name       text        NOT NULL,
    country    text,
    created_at timestamptz NOT NULL
);

CREATE TABLE books (
    book_no  bigint PRIMARY KEY,
    title    text   NOT NULL,
    author   text,
    language text
);

CREATE TABLE users_books (
    user_no     bigint      NOT NULL,
    book_no     bigint      NOT NULL,
    acquired_at timestamptz NOT NULL,
    PRIMARY KEY (user_no, book_no)
);

CREATE TABLE highlights (
    id          text COLLATE "C" PRIMARY KEY,
    user_no     bigint      NOT NULL,
    book_no     bigint      NOT NULL,
    text        text        NOT NULL,
    start       int         NOT NULL,
    length      int         NOT NULL,
    color       text        NOT NULL,
    note        text,
    created_at  timestamptz NOT NULL,
    modified_at timestamptz NOT NULL
);
