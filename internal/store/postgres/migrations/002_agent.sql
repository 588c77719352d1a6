-- bb agent (seed 000/001), PostgreSQL twin of the SQLite migration 002: indexes that keep check-ins and status cheap.

-- Acks owed: messages requiring an ack, by recipient, newest first. For
-- direct messages acked_at on the row settles it; broadcasts keep per-agent
-- acks in broadcast_acks.
CREATE INDEX idx_messages_ack_required ON messages(recipient, seq) WHERE requires_ack = 1;

-- Incursions aimed at an agent (INCURSION events carry the owner in to_agent).
CREATE INDEX idx_events_to_agent ON events(to_agent, type, created_at) WHERE to_agent <> '';
