-- When each agent's status took its current value: a status set again to
-- the same value keeps it. It names one stretch of an agent being blocked
-- (the attention item "stuck" keeps one id, and one notification, for the
-- whole stretch) and says how long it has lasted. Rows older than the
-- column start at their last update.
ALTER TABLE agents ADD COLUMN status_since TEXT COLLATE "C" NOT NULL DEFAULT '';
UPDATE agents SET status_since = updated_at;
