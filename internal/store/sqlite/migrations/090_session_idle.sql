-- When a client session's turn ended (its Stop hook ran) and no hook of a
-- new turn has run since: the session is idle, and what arrives for its
-- agent waits for its next turn unless a waiter wakes it. '' while a turn
-- runs (or before the board recorded it). The attention list reads the
-- idle sessions only, through the partial index.
ALTER TABLE hook_sessions ADD COLUMN idle_since TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_hook_sessions_idle ON hook_sessions(idle_since) WHERE idle_since <> '';
