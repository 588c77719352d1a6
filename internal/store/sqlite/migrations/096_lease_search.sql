-- Full-text search over the grants of leases (bb search finds them by the
-- lease's name, its holder and the port or name it was handed): the name
-- is the first field, which weighs more; the holder and the value the
-- second. A regular FTS5 table keyed by the grant's id (as tasks_fts), so
-- every SQLite since 3.9 writes it; triggers keep it in the transaction of
-- the write that changes a grant, whichever program writes it.
CREATE VIRTUAL TABLE lease_holders_fts USING fts5(name, holder, id UNINDEXED,
    tokenize='unicode61 remove_diacritics 0');

INSERT INTO lease_holders_fts (name, holder, id) SELECT name, agent || ' ' || value, id FROM lease_holders;

CREATE TRIGGER lease_holders_fts_insert AFTER INSERT ON lease_holders BEGIN
    INSERT INTO lease_holders_fts (name, holder, id) VALUES (NEW.name, NEW.agent || ' ' || NEW.value, NEW.id);
END;
CREATE TRIGGER lease_holders_fts_update AFTER UPDATE OF id, name, agent, value ON lease_holders
WHEN OLD.id IS NOT NEW.id OR OLD.name IS NOT NEW.name OR OLD.agent IS NOT NEW.agent OR OLD.value IS NOT NEW.value BEGIN
    DELETE FROM lease_holders_fts WHERE id = OLD.id;
    INSERT INTO lease_holders_fts (name, holder, id) VALUES (NEW.name, NEW.agent || ' ' || NEW.value, NEW.id);
END;
CREATE TRIGGER lease_holders_fts_delete AFTER DELETE ON lease_holders BEGIN
    DELETE FROM lease_holders_fts WHERE id = OLD.id;
END;
