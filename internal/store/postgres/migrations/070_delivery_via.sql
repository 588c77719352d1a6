-- How each message reached its recipient's context: a hook of a turn
-- (session_start, prompt, tool), a wake of an idle session (wake), or a
-- wait the agent asked for (wait). Rows older than the column say ''
-- (a hook, before the board recorded which).
ALTER TABLE mail_deliveries ADD COLUMN via TEXT COLLATE "C" NOT NULL DEFAULT '';
