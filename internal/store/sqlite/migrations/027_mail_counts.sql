-- Agent Mail's status counts (unread and unacked per identity) kept as
-- running totals, so `agent-mail status` reads a few rows instead of
-- every message and receipt of the board's history. Triggers keep them,
-- whoever writes the messages (other tools included).

-- Per agent: its direct messages (not sent to itself) still unread and
-- still unacked, and its receipts of others' broadcasts read and acked.
CREATE TABLE mail_counts (
    agent            TEXT PRIMARY KEY,
    direct_unread    INTEGER NOT NULL DEFAULT 0,
    direct_unacked   INTEGER NOT NULL DEFAULT 0,
    broadcasts_read  INTEGER NOT NULL DEFAULT 0,
    broadcasts_acked INTEGER NOT NULL DEFAULT 0
);

-- Per sender: how many broadcasts it sent.
CREATE TABLE broadcast_senders (
    sender     TEXT PRIMARY KEY,
    broadcasts INTEGER NOT NULL DEFAULT 0
);

INSERT INTO mail_counts (agent, direct_unread, direct_unacked)
SELECT recipient, SUM(CASE WHEN read_at IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN acked_at IS NULL THEN 1 ELSE 0 END)
FROM messages WHERE recipient <> '*' AND sender <> recipient GROUP BY recipient;
INSERT INTO mail_counts (agent) SELECT DISTINCT agent FROM broadcast_acks WHERE agent NOT IN (SELECT agent FROM mail_counts);
UPDATE mail_counts SET
    broadcasts_read = (SELECT COUNT(*) FROM broadcast_acks b JOIN messages m ON m.id = b.message_id
        WHERE b.agent = mail_counts.agent AND m.recipient = '*' AND m.sender <> b.agent AND b.read_at IS NOT NULL),
    broadcasts_acked = (SELECT COUNT(*) FROM broadcast_acks b JOIN messages m ON m.id = b.message_id
        WHERE b.agent = mail_counts.agent AND m.recipient = '*' AND m.sender <> b.agent AND b.acked_at IS NOT NULL);
INSERT INTO broadcast_senders (sender, broadcasts) SELECT sender, COUNT(*) FROM messages WHERE recipient = '*' GROUP BY sender;

CREATE TRIGGER mail_counts_direct_insert AFTER INSERT ON messages
WHEN NEW.recipient <> '*' AND NEW.sender <> NEW.recipient
BEGIN
    INSERT OR IGNORE INTO mail_counts (agent) VALUES (NEW.recipient);
    UPDATE mail_counts SET direct_unread = direct_unread + (NEW.read_at IS NULL),
        direct_unacked = direct_unacked + (NEW.acked_at IS NULL) WHERE agent = NEW.recipient;
END;

CREATE TRIGGER mail_counts_direct_update AFTER UPDATE OF read_at, acked_at, sender, recipient ON messages
BEGIN
    UPDATE mail_counts SET direct_unread = direct_unread - (OLD.read_at IS NULL),
        direct_unacked = direct_unacked - (OLD.acked_at IS NULL)
    WHERE agent = OLD.recipient AND OLD.recipient <> '*' AND OLD.sender <> OLD.recipient;
    INSERT OR IGNORE INTO mail_counts (agent) SELECT NEW.recipient WHERE NEW.recipient <> '*' AND NEW.sender <> NEW.recipient;
    UPDATE mail_counts SET direct_unread = direct_unread + (NEW.read_at IS NULL),
        direct_unacked = direct_unacked + (NEW.acked_at IS NULL)
    WHERE agent = NEW.recipient AND NEW.recipient <> '*' AND NEW.sender <> NEW.recipient;
END;

CREATE TRIGGER mail_counts_direct_delete AFTER DELETE ON messages
WHEN OLD.recipient <> '*' AND OLD.sender <> OLD.recipient
BEGIN
    UPDATE mail_counts SET direct_unread = direct_unread - (OLD.read_at IS NULL),
        direct_unacked = direct_unacked - (OLD.acked_at IS NULL) WHERE agent = OLD.recipient;
END;

CREATE TRIGGER broadcast_senders_insert AFTER INSERT ON messages
WHEN NEW.recipient = '*'
BEGIN
    INSERT OR IGNORE INTO broadcast_senders (sender) VALUES (NEW.sender);
    UPDATE broadcast_senders SET broadcasts = broadcasts + 1 WHERE sender = NEW.sender;
END;

-- A broadcast deleted before its receipts takes their counts with it (a
-- receipt counts only while its broadcast exists).
CREATE TRIGGER broadcast_senders_delete AFTER DELETE ON messages
WHEN OLD.recipient = '*'
BEGIN
    UPDATE broadcast_senders SET broadcasts = broadcasts - 1 WHERE sender = OLD.sender;
    UPDATE mail_counts SET
        broadcasts_read = broadcasts_read - (SELECT COUNT(*) FROM broadcast_acks b
            WHERE b.message_id = OLD.id AND b.agent = mail_counts.agent AND b.read_at IS NOT NULL),
        broadcasts_acked = broadcasts_acked - (SELECT COUNT(*) FROM broadcast_acks b
            WHERE b.message_id = OLD.id AND b.agent = mail_counts.agent AND b.acked_at IS NOT NULL)
    WHERE agent IN (SELECT agent FROM broadcast_acks WHERE message_id = OLD.id) AND agent <> OLD.sender;
END;

CREATE TRIGGER mail_counts_receipt_insert AFTER INSERT ON broadcast_acks
WHEN EXISTS (SELECT 1 FROM messages m WHERE m.id = NEW.message_id AND m.recipient = '*' AND m.sender <> NEW.agent)
BEGIN
    INSERT OR IGNORE INTO mail_counts (agent) VALUES (NEW.agent);
    UPDATE mail_counts SET broadcasts_read = broadcasts_read + (NEW.read_at IS NOT NULL),
        broadcasts_acked = broadcasts_acked + (NEW.acked_at IS NOT NULL) WHERE agent = NEW.agent;
END;

CREATE TRIGGER mail_counts_receipt_update AFTER UPDATE OF read_at, acked_at ON broadcast_acks
WHEN EXISTS (SELECT 1 FROM messages m WHERE m.id = NEW.message_id AND m.recipient = '*' AND m.sender <> NEW.agent)
BEGIN
    UPDATE mail_counts SET
        broadcasts_read = broadcasts_read + (NEW.read_at IS NOT NULL) - (OLD.read_at IS NOT NULL),
        broadcasts_acked = broadcasts_acked + (NEW.acked_at IS NOT NULL) - (OLD.acked_at IS NOT NULL)
    WHERE agent = NEW.agent;
END;

CREATE TRIGGER mail_counts_receipt_delete AFTER DELETE ON broadcast_acks
WHEN EXISTS (SELECT 1 FROM messages m WHERE m.id = OLD.message_id AND m.recipient = '*' AND m.sender <> OLD.agent)
BEGIN
    UPDATE mail_counts SET broadcasts_read = broadcasts_read - (OLD.read_at IS NOT NULL),
        broadcasts_acked = broadcasts_acked - (OLD.acked_at IS NOT NULL) WHERE agent = OLD.agent;
END;
