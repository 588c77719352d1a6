-- Whose words a message is, decided by the core when it is stored: a
-- person's (an overseer's or the operator's credential, or on a board
-- without credentials an agent registered as a person), the board's own,
-- or another agent's. A hook, a wake and bb_wait say it when they put the
-- message into a model's context. Rows older than the column, or written
-- by another program (Agent Mail's own tests insert TC9 columns only),
-- count as an agent's: the least authority.
ALTER TABLE messages ADD COLUMN spoken_by TEXT NOT NULL DEFAULT 'agent';
