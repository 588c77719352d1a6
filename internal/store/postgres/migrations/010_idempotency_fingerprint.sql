-- A request id identifies one request: the fingerprint of the request a
-- reply was stored for, so that reusing the id for a different request is
-- refused instead of silently answered with the first request's reply.
-- Records stored before this migration have no fingerprint ('') and are
-- replayed on the command alone, as before.
ALTER TABLE idempotency ADD COLUMN fingerprint TEXT COLLATE "C" NOT NULL DEFAULT '';
