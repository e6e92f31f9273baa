-- Kobo links: the secret a Kobo e-reader carries in its api_endpoint (/kobo/{secret}), bound to a
-- user and to the device that created it. Only the secret's SHA-256 is stored. Revoking the device
-- (DELETE /v1/users/{userNo}/devices/{deviceId}) marks its links revoked in the same transaction, for
-- good: the device's own revocation lapses after the longest token lifetime and is purged, a link's
-- revocation is never undone.

CREATE TABLE kobo_links (
    secret_hash bytea       PRIMARY KEY,
    user_no     bigint      NOT NULL,
    device_id   text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- Revoking a device finds its links.
CREATE INDEX kobo_links_device ON kobo_links (user_no, device_id);
