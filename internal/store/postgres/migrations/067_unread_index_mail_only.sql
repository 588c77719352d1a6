-- The unread index holds what is addressed to an agent, not the board's
-- broadcasts (their reads are receipts in broadcast_acks, so read_at stays
-- NULL and every broadcast was in it): a post writes one index less, and a
-- lookup of an agent's unread mail is a range of a small index whatever
-- share of the board is broadcasts (a plan made for any agent name, as
-- PostgreSQL's generic plans are, read the whole table on a board of
-- broadcasts). Queries using it say recipient <> '*'.
DROP INDEX idx_messages_unread;
CREATE INDEX idx_messages_unread ON messages(recipient, created) WHERE read_at IS NULL AND recipient <> '*';
