-- Kobo links, bounded: a user keeps at most 20 live links (5 per device) and the 20 newest revoked
-- ones, and revoked links older than a token's lifetime are purged. Every instance polls the links
-- revoked since its last poll (as it polls device revocations), so a replaced or revoked link stops
-- working everywhere within the refresh period: that poll reads by revoked_at.

CREATE INDEX kobo_links_revoked ON kobo_links (revoked_at) WHERE revoked_at IS NOT NULL;

-- Existing rows are brought within the bounds the service keeps from now on.
UPDATE kobo_links SET revoked_at = now()
WHERE revoked_at IS NULL AND secret_hash IN (
    SELECT secret_hash FROM (
        SELECT secret_hash,
               row_number() OVER (PARTITION BY user_no, device_id ORDER BY created_at DESC, secret_hash) AS in_device,
               row_number() OVER (PARTITION BY user_no ORDER BY created_at DESC, secret_hash) AS in_user
        FROM kobo_links WHERE revoked_at IS NULL) ranked
    WHERE in_device > 5 OR in_user > 20);

DELETE FROM kobo_links
WHERE secret_hash IN (
    SELECT secret_hash FROM (
        SELECT secret_hash, row_number() OVER (PARTITION BY user_no ORDER BY revoked_at DESC, secret_hash) AS newest
        FROM kobo_links WHERE revoked_at IS NOT NULL) ranked
    WHERE newest > 20);
