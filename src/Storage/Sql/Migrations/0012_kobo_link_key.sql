-- The key that tags every Kobo link secret (KoboLinkSecrets): a secret the service never issued fails
-- the tag check before any look-up, so made-up secrets cost no database read and no look-up slot. One
-- key per database, drawn here from PostgreSQL's strong random source (two version-4 UUIDs, 244 random
-- bits), read by every instance, and kept by backups with the links it tags.

CREATE TABLE kobo_link_keys (
    id         smallint    PRIMARY KEY CHECK (id = 1),
    secret_key bytea       NOT NULL CHECK (length(secret_key) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO kobo_link_keys (id, secret_key) VALUES (1, uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));

-- Secrets issued before the key carry no tag and can no longer be presented: their links are revoked,
-- so that the devices' link lists say so. Their owners link the e-readers again.
UPDATE kobo_links SET revoked_at = now() WHERE revoked_at IS NULL;
