-- Blackboard (seed 003), PostgreSQL twin of the SQLite migration 006: indexes that keep every bb log filter and the
-- check-in index-driven on a board of 100k+ messages.

-- A recipient's messages in seq order, split by requires_ack: broadcasts
-- newer than an agent's read cursor (the unread notice of every identified
-- command: recipient = '*' AND requires_ack IN (0, 1) AND seq > cursor) and
-- the acks owed (requires_ack = 1) are both ranges of it.
CREATE INDEX idx_messages_recipient_ack_seq ON messages(recipient, requires_ack, seq);
-- bb log --from: one sender's messages, newest first, without a sort.
CREATE INDEX idx_messages_sender_seq ON messages(sender, seq);
-- bb log --priority high|critical: only urgent rows, newest first.
CREATE INDEX idx_messages_urgent_seq ON messages(seq) WHERE priority IN ('high', 'critical');
-- bb log --since: the seqs of a time window, read from the index alone.
CREATE INDEX idx_messages_created_seq ON messages(created, seq);
-- bb refs / --ref: owner ids of one ref, read from the index alone.
CREATE INDEX idx_refs_owner_lookup ON refs(ref_where, ref_what, ref_ref, owner_kind, owner_id);
