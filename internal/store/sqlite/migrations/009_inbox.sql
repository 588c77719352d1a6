-- One inbox per agent (and the intent of what is in it).
-- The fingerprint of the notices (unread counts, acks
-- owed, incursions, newest unread item) an agent was last given, so every
-- surface shows a notice when something changed rather than on every command.
ALTER TABLE agents ADD COLUMN notice_mark TEXT NOT NULL DEFAULT '';

-- Intent visible to the recipient: a HANDOFF's next action, a BLOCKED
-- message's requested action and urgency (JSON; '' for other messages).
ALTER TABLE messages ADD COLUMN intent TEXT NOT NULL DEFAULT '';
