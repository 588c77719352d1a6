-- The search index of a message bb writes is now written by bb itself, at
-- the end of the write transaction, in one statement for all the messages
-- the transaction added (a group commit of many posts becomes one index
-- segment instead of one per post). The per-row insert trigger goes.
--
-- The update and delete triggers stay: a message another program inserts
-- without a seq still gets its seq from messages_assign_seq (an UPDATE),
-- which indexes it, and edits and deletions by any program still reach the
-- index in their own transaction.
DROP TRIGGER IF EXISTS messages_fts_insert;
