-- Credentials of bb serve (bb token): a secret names who a request speaks
-- for (an agent, an overseer or the operator). Only a SHA-256 hash of the
-- secret is kept. Every timeline event records the credential (its name)
-- that caused it; '' is the local board or a token-less loopback server.
CREATE TABLE credentials (
    id         TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT COLLATE "C" NOT NULL UNIQUE,
    agent      TEXT COLLATE "C" NOT NULL DEFAULT '',
    role       TEXT COLLATE "C" NOT NULL,
    hash       TEXT COLLATE "C" NOT NULL UNIQUE,
    created_by TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C",
    revoked_at TEXT COLLATE "C"
);

ALTER TABLE events ADD COLUMN credential TEXT COLLATE "C" NOT NULL DEFAULT '';
