-- Named leases (bb lease): locks, slots of a capacity, ports and names a
-- board hands out. One row per lease name ever granted: its kind, its
-- capacity and the last fencing number it gave (it only grows, so the row
-- is never deleted) and the last queue number of its waiters.
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    capacity   INTEGER NOT NULL DEFAULT 1,
    fence      INTEGER NOT NULL DEFAULT 0,
    queue_seq  INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Every grant of a lease; history is the rows themselves (state active,
-- released, expired or taken_over). value is the port or the name handed
-- out ('' for a lock or a slot).
CREATE TABLE lease_holders (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    agent       TEXT NOT NULL,
    fence       INTEGER NOT NULL,
    value       TEXT NOT NULL DEFAULT '',
    worktree    TEXT NOT NULL DEFAULT '',
    host        TEXT NOT NULL DEFAULT '',
    session     TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL DEFAULT 'active',
    acquired_at TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    released_at TEXT,
    ended_by    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_lease_holders_active ON lease_holders(name, agent) WHERE state = 'active';
CREATE INDEX idx_lease_holders_agent ON lease_holders(agent, state);
-- One port per host among the active grants, one handed-out name per name:
-- the store refuses a double grant even if a rule were wrong.
CREATE UNIQUE INDEX idx_lease_holders_port ON lease_holders(host, value) WHERE state = 'active' AND kind = 'port';
CREATE UNIQUE INDEX idx_lease_holders_value ON lease_holders(name, value) WHERE state = 'active' AND kind = 'name';

-- Callers waiting for a lease (bb lease acquire --wait), served in order
-- of seq (the lease's queue_seq when they arrived). wait_until is when the wait
-- ends; host and pid name the waiting process, so that a waiter that died
-- is passed over on its host.
CREATE TABLE lease_waiters (
    name  TEXT NOT NULL,
    agent TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    host  TEXT NOT NULL DEFAULT '',
    pid   INTEGER NOT NULL DEFAULT 0,
    since TEXT NOT NULL,
    wait_until TEXT NOT NULL,
    PRIMARY KEY (name, agent)
);
CREATE INDEX idx_lease_waiters_seq ON lease_waiters(name, seq);
