-- The twin of SQLite's 030: messages get indexed_by_writer, the mark of a
-- message whose writer indexes it for search itself (SQLite only; here the
-- database keeps its index and the column stays 0). It exists on both so
-- that a board copied between them (bb migrate) keeps the same columns.
ALTER TABLE messages ADD COLUMN indexed_by_writer INTEGER NOT NULL DEFAULT 0;
