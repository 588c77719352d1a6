-- Inbox pages of read or acked messages that cost the same on a board of a
-- million messages as on one of a thousand: each state is read from an
-- index holding only the rows in that state, newest first, instead of
-- walking the whole history skipping the rows in other states.

-- A broadcast receipt carries its message's seq, so an agent's receipts can
-- be walked in message order.
ALTER TABLE broadcast_acks ADD COLUMN message_seq INTEGER;
UPDATE broadcast_acks SET message_seq = (SELECT m.seq FROM messages m WHERE m.id = broadcast_acks.message_id);
-- Receipts written by other tools (Agent Mail's own columns only) get it too.
CREATE TRIGGER broadcast_acks_message_seq AFTER INSERT ON broadcast_acks
WHEN NEW.message_seq IS NULL
BEGIN
    UPDATE broadcast_acks SET message_seq = (SELECT m.seq FROM messages m WHERE m.id = NEW.message_id)
    WHERE message_id = NEW.message_id AND agent = NEW.agent;
END;

-- An agent's broadcasts read but not acked, and acked, by message order.
CREATE INDEX idx_broadcast_acks_read ON broadcast_acks(agent, message_seq) WHERE read_at IS NOT NULL AND acked_at IS NULL;
CREATE INDEX idx_broadcast_acks_acked ON broadcast_acks(agent, message_seq) WHERE acked_at IS NOT NULL;

-- A recipient's direct messages read but not acked, and acked, newest first.
CREATE INDEX idx_messages_read_recipient_created ON messages(recipient, created) WHERE read_at IS NOT NULL AND acked_at IS NULL;
CREATE INDEX idx_messages_acked_recipient_created ON messages(recipient, created) WHERE acked_at IS NOT NULL;
