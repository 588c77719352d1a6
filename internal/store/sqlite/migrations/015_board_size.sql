-- Reads that cost the same on a board of a million messages as on one of a
-- thousand.

-- bb agent inbox --mail-only (and bb agent mail of one agent): a recipient's
-- mail with a bead, newest first, without walking the board posts (which
-- carry no bead) of a long history.
CREATE INDEX idx_messages_mail_recipient_created ON messages(recipient, created) WHERE bead_id <> '';

-- Acks owed to an agent: only the rows still waiting for the ack, so the
-- check-in of every command never walks the acks given over a long history.
CREATE INDEX idx_messages_ack_owed ON messages(recipient, seq) WHERE requires_ack = 1 AND acked_at IS NULL;

-- Agent Mail's unread broadcasts: every broadcast with seq <= mail_cursor
-- (other than the identity's own) has this identity's read receipt, so an
-- inbox read starts after it instead of checking every broadcast ever sent.
-- It only moves forward, over broadcasts read; 0 = look at all of them.
ALTER TABLE agents ADD COLUMN mail_cursor INTEGER NOT NULL DEFAULT 0;
