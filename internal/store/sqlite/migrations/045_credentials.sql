-- Credentials of bb serve (bb token): a secret names who a request speaks
-- for (an agent, an overseer or the operator). Only a SHA-256 hash of the
-- secret is kept. Every timeline event records the credential (its name)
-- that caused it; '' is the local board or a token-less loopback server.
CREATE TABLE credentials (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    agent      TEXT NOT NULL DEFAULT '',
    role       TEXT NOT NULL,
    hash       TEXT NOT NULL UNIQUE,
    created_by TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT
);

ALTER TABLE events ADD COLUMN credential TEXT NOT NULL DEFAULT '';
