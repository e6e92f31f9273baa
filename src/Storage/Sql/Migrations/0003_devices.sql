-- Per-device sync state: when each device last pulled, the position it came back with (the
-- sync token it sent, that is what it has applied), and whether it was revoked.

CREATE TABLE devices (
    user_no       bigint      NOT NULL,
    device_id     text        NOT NULL,
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    -- Null for a device revoked before it ever pulled.
    last_sync_at  timestamptz,
    acked_seq     bigint      NOT NULL DEFAULT 0,
    -- Tokens issued at or before this time stop working; null while the device is allowed.
    revoked_at    timestamptz,
    PRIMARY KEY (user_no, device_id)
);

-- Every instance loads the revoked devices at start and then polls for new revocations.
CREATE INDEX devices_revoked ON devices (revoked_at) WHERE revoked_at IS NOT NULL;
