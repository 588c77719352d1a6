-- Escalation told to its sender (the hook delivery): the HANDOFF and
-- BLOCKED messages an agent sent that still wait for an ack, read at every
-- prompt of the sender's session, so only the rows still waiting are
-- indexed and a long history of posts and accepted mail is never walked.
CREATE INDEX idx_messages_sender_unacked ON messages(sender, seq) WHERE requires_ack = 1 AND acked_at IS NULL;
