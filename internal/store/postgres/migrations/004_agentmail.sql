-- Agent Mail (seed 004), PostgreSQL twin of the SQLite migration 004: inbox pages and TTL cleanup that stay cheap on a
-- large mailbox.

-- An inbox page is "this recipient's messages in created order"; the
-- partial index holds only the unread ones, so the default read never
-- walks over what was already read.
CREATE INDEX idx_messages_recipient_created ON messages(recipient, created);
CREATE INDEX idx_messages_unread ON messages(recipient, created) WHERE read_at IS NULL;

-- Expiry is decided from the created text with one range scan on
-- idx_messages_expiring for rows with the usual TTL (24 h) and a UTC
-- "YYYY-MM-DDT…+00:00" timestamp. Rows written by other tools with another
-- TTL or another offset/format cannot be bounded that way; this index holds
-- only those (normally none), and cleanup checks each of them.
CREATE INDEX idx_messages_expiring_irregular ON messages(created)
    WHERE ttl_hours IS NOT NULL AND (ttl_hours <> 24 OR created NOT LIKE '____-__-__T%+00:00');
