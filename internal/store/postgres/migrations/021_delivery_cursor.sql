-- Hook delivery: every urgent broadcast (high or critical, or asking for an
-- ack) with seq <= delivery_cursor has been delivered to the agent's coding
-- session, or was never due to it (its own, already read or acked), so a
-- hook looks only at the broadcasts after it, even for an agent that never
-- runs bb log and so keeps read cursor 0. It only moves forward, when a
-- delivery is recorded; 0 = look at every broadcast since the agent joined.
ALTER TABLE agents ADD COLUMN delivery_cursor BIGINT NOT NULL DEFAULT 0;
