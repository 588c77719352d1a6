-- The full-text indexes of messages, memory and artifacts become
-- external-content FTS5 tables, which every SQLite since 3.9 reads and
-- writes. The contentless tables of 008 used FTS5's contentless_delete=1,
-- which needs SQLite 3.43: Debian 12's sqlite3, Python 3.11's sqlite3
-- module (3.40) and Ubuntu 22.04's (3.37) refused every insert, update and
-- delete on the indexed tables with 'unrecognized option:
-- "contentless_delete"', so no other program could write the board.
--
-- An external-content table stores only the index, as before; the words
-- of a row are read from the row itself (messages by seq, memory and
-- artifacts by id) when asked for, which search never does. Removing a
-- row's entries needs the values that were indexed: the triggers hand
-- the old row to FTS5's 'delete' command, and only for a row the index
-- holds (its size is in the _docsize table), so that deleting a row that
-- was never indexed cannot damage the index.
--
-- Messages bb writes are indexed by bb at commit (023), in one statement
-- per transaction; bb marks them with indexed_by_writer = 1. A message
-- another program inserts has indexed_by_writer = 0 (the default) and is
-- indexed by messages_fts_insert when it has a seq, or by
-- messages_fts_update when messages_assign_seq gives it one.

DROP TRIGGER IF EXISTS messages_fts_update;
DROP TRIGGER IF EXISTS messages_fts_delete;
DROP TRIGGER IF EXISTS memory_fts_insert;
DROP TRIGGER IF EXISTS memory_fts_update;
DROP TRIGGER IF EXISTS memory_fts_delete;
DROP TRIGGER IF EXISTS artifacts_fts_insert;
DROP TRIGGER IF EXISTS artifacts_fts_update;
DROP TRIGGER IF EXISTS artifacts_fts_delete;
DROP TABLE messages_fts;
DROP TABLE memory_fts;
DROP TABLE artifacts_fts;

ALTER TABLE messages ADD COLUMN indexed_by_writer INTEGER NOT NULL DEFAULT 0;

CREATE VIRTUAL TABLE messages_fts USING fts5(subject, body,
    content='messages', content_rowid='seq', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE memory_fts USING fts5(key, value,
    content='memory', content_rowid='id', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE artifacts_fts USING fts5(path, description,
    content='artifacts', content_rowid='id', tokenize='unicode61 remove_diacritics 0');

INSERT INTO messages_fts (rowid, subject, body) SELECT seq, subject, body FROM messages WHERE seq IS NOT NULL ORDER BY seq;
INSERT INTO memory_fts (rowid, key, value) SELECT id, key, value FROM memory ORDER BY id;
INSERT INTO artifacts_fts (rowid, path, description) SELECT id, path, description FROM artifacts ORDER BY id;

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
WHEN NEW.seq IS NOT NULL AND NEW.indexed_by_writer = 0 BEGIN
    INSERT INTO messages_fts (rowid, subject, body) VALUES (NEW.seq, NEW.subject, NEW.body);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF seq, subject, body ON messages
WHEN OLD.seq IS NOT NEW.seq OR OLD.subject IS NOT NEW.subject OR OLD.body IS NOT NEW.body BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, subject, body) SELECT 'delete', OLD.seq, OLD.subject, OLD.body
        WHERE EXISTS (SELECT 1 FROM messages_fts_docsize WHERE id = OLD.seq);
    INSERT INTO messages_fts (rowid, subject, body) SELECT NEW.seq, NEW.subject, NEW.body WHERE NEW.seq IS NOT NULL;
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
WHEN EXISTS (SELECT 1 FROM messages_fts_docsize WHERE id = OLD.seq) BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, subject, body) VALUES ('delete', OLD.seq, OLD.subject, OLD.body);
END;

CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory BEGIN
    INSERT INTO memory_fts (rowid, key, value) VALUES (NEW.id, NEW.key, NEW.value);
END;
CREATE TRIGGER memory_fts_update AFTER UPDATE OF id, key, value ON memory
WHEN OLD.id IS NOT NEW.id OR OLD.key IS NOT NEW.key OR OLD.value IS NOT NEW.value BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, key, value) SELECT 'delete', OLD.id, OLD.key, OLD.value
        WHERE EXISTS (SELECT 1 FROM memory_fts_docsize WHERE id = OLD.id);
    INSERT INTO memory_fts (rowid, key, value) VALUES (NEW.id, NEW.key, NEW.value);
END;
CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory
WHEN EXISTS (SELECT 1 FROM memory_fts_docsize WHERE id = OLD.id) BEGIN
    INSERT INTO memory_fts (memory_fts, rowid, key, value) VALUES ('delete', OLD.id, OLD.key, OLD.value);
END;

CREATE TRIGGER artifacts_fts_insert AFTER INSERT ON artifacts BEGIN
    INSERT INTO artifacts_fts (rowid, path, description) VALUES (NEW.id, NEW.path, NEW.description);
END;
CREATE TRIGGER artifacts_fts_update AFTER UPDATE OF id, path, description ON artifacts
WHEN OLD.id IS NOT NEW.id OR OLD.path IS NOT NEW.path OR OLD.description IS NOT NEW.description BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, path, description) SELECT 'delete', OLD.id, OLD.path, OLD.description
        WHERE EXISTS (SELECT 1 FROM artifacts_fts_docsize WHERE id = OLD.id);
    INSERT INTO artifacts_fts (rowid, path, description) VALUES (NEW.id, NEW.path, NEW.description);
END;
CREATE TRIGGER artifacts_fts_delete AFTER DELETE ON artifacts
WHEN EXISTS (SELECT 1 FROM artifacts_fts_docsize WHERE id = OLD.id) BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, path, description) VALUES ('delete', OLD.id, OLD.path, OLD.description);
END;
