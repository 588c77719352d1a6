-- One inbox per agent: the fingerprint of the notices (unread counts, acks
-- owed, incursions, newest unread item) an agent was last given, so every
-- surface shows a notice when something changed rather than on every command.
ALTER TABLE agents ADD COLUMN notice_mark TEXT NOT NULL DEFAULT '';
