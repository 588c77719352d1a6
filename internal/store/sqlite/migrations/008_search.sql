-- Full-text search (SQLite FTS5) over messages and mail (subject, body),
-- tasks (title, description), memory (key, value) and artifacts (path,
-- description). Triggers keep each index in the transaction of the write
-- that changes its source row, whichever program writes it.
--
-- Messages, memory and artifacts are indexed by an integer key of their own
-- (seq, id), in contentless tables that store only the index; tasks have a
-- text key, so their table keeps the id as an unindexed column. Words are
-- runs of letters and digits, case-folded, accents kept (as in PostgreSQL).

CREATE VIRTUAL TABLE messages_fts USING fts5(subject, body,
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE tasks_fts USING fts5(title, description, id UNINDEXED,
    tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE memory_fts USING fts5(key, value,
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE artifacts_fts USING fts5(path, description,
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');

INSERT INTO messages_fts (rowid, subject, body) SELECT seq, subject, body FROM messages WHERE seq IS NOT NULL;
INSERT INTO tasks_fts (title, description, id) SELECT title, description, id FROM tasks;
INSERT INTO memory_fts (rowid, key, value) SELECT id, key, value FROM memory;
INSERT INTO artifacts_fts (rowid, path, description) SELECT id, path, description FROM artifacts;

-- A message written by another tool gets its seq from messages_assign_seq
-- (an UPDATE right after the INSERT): it is indexed then.
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN NEW.seq IS NOT NULL BEGIN
    INSERT INTO messages_fts (rowid, subject, body) VALUES (NEW.seq, NEW.subject, NEW.body);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF seq, subject, body ON messages
WHEN OLD.seq IS NOT NEW.seq OR OLD.subject IS NOT NEW.subject OR OLD.body IS NOT NEW.body BEGIN
    DELETE FROM messages_fts WHERE rowid = OLD.seq;
    INSERT INTO messages_fts (rowid, subject, body) SELECT NEW.seq, NEW.subject, NEW.body WHERE NEW.seq IS NOT NULL;
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN OLD.seq IS NOT NULL BEGIN
    DELETE FROM messages_fts WHERE rowid = OLD.seq;
END;

CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO tasks_fts (title, description, id) VALUES (NEW.title, NEW.description, NEW.id);
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF id, title, description ON tasks
WHEN OLD.id IS NOT NEW.id OR OLD.title IS NOT NEW.title OR OLD.description IS NOT NEW.description BEGIN
    DELETE FROM tasks_fts WHERE id = OLD.id;
    INSERT INTO tasks_fts (title, description, id) VALUES (NEW.title, NEW.description, NEW.id);
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
    DELETE FROM tasks_fts WHERE id = OLD.id;
END;

CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory BEGIN
    INSERT INTO memory_fts (rowid, key, value) VALUES (NEW.id, NEW.key, NEW.value);
END;
CREATE TRIGGER memory_fts_update AFTER UPDATE OF key, value ON memory
WHEN OLD.key IS NOT NEW.key OR OLD.value IS NOT NEW.value BEGIN
    DELETE FROM memory_fts WHERE rowid = OLD.id;
    INSERT INTO memory_fts (rowid, key, value) VALUES (NEW.id, NEW.key, NEW.value);
END;
CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory BEGIN
    DELETE FROM memory_fts WHERE rowid = OLD.id;
END;

CREATE TRIGGER artifacts_fts_insert AFTER INSERT ON artifacts BEGIN
    INSERT INTO artifacts_fts (rowid, path, description) VALUES (NEW.id, NEW.path, NEW.description);
END;
CREATE TRIGGER artifacts_fts_update AFTER UPDATE OF path, description ON artifacts
WHEN OLD.path IS NOT NEW.path OR OLD.description IS NOT NEW.description BEGIN
    DELETE FROM artifacts_fts WHERE rowid = OLD.id;
    INSERT INTO artifacts_fts (rowid, path, description) VALUES (NEW.id, NEW.path, NEW.description);
END;
CREATE TRIGGER artifacts_fts_delete AFTER DELETE ON artifacts BEGIN
    DELETE FROM artifacts_fts WHERE rowid = OLD.id;
END;
