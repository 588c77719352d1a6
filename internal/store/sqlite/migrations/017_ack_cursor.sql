-- Acks owed on broadcasts: every broadcast asking for an ack with
-- seq <= ack_cursor (other than the agent's own) has the agent's ack, so the
-- check-in of every command counts only the broadcasts after it instead of
-- the newest hundreds of a long history. It only moves forward, over
-- broadcasts acked; 0 = look at all of them.
ALTER TABLE agents ADD COLUMN ack_cursor INTEGER NOT NULL DEFAULT 0;
