-- PostgreSQL twin of the SQLite migration 020. The board part of every
-- identified call's notice counts walks the broadcasts after the agent's
-- read cursor (up to the cap) and skips the agent's own: with the sender in
-- the index that walk reads no table row unless the agent has read or
-- acked single broadcasts, which the index on broadcast_acks(agent) tells
-- at once.
DROP INDEX idx_messages_recipient_ack_seq;
CREATE INDEX idx_messages_recipient_ack_seq ON messages(recipient, requires_ack, seq, sender);
CREATE INDEX idx_broadcast_acks_agent ON broadcast_acks(agent);
