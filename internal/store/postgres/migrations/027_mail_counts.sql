-- Agent Mail's status counts (unread and unacked per identity) kept as
-- running totals, so `agent-mail status` reads a few rows instead of
-- every message and receipt of the board's history. Triggers keep them,
-- whoever writes the messages (other tools included).

-- Per agent: its direct messages (not sent to itself) still unread and
-- still unacked, and its receipts of others' broadcasts read and acked.
CREATE TABLE mail_counts (
    agent            TEXT COLLATE "C" PRIMARY KEY,
    direct_unread    BIGINT NOT NULL DEFAULT 0,
    direct_unacked   BIGINT NOT NULL DEFAULT 0,
    broadcasts_read  BIGINT NOT NULL DEFAULT 0,
    broadcasts_acked BIGINT NOT NULL DEFAULT 0
);

-- Per sender: how many broadcasts it sent.
CREATE TABLE broadcast_senders (
    sender     TEXT COLLATE "C" PRIMARY KEY,
    broadcasts BIGINT NOT NULL DEFAULT 0
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

CREATE FUNCTION mail_counts_direct() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.recipient <> '*' AND OLD.sender <> OLD.recipient THEN
        UPDATE mail_counts SET direct_unread = direct_unread - (OLD.read_at IS NULL)::int,
            direct_unacked = direct_unacked - (OLD.acked_at IS NULL)::int WHERE agent = OLD.recipient;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.recipient <> '*' AND NEW.sender <> NEW.recipient THEN
        INSERT INTO mail_counts (agent) VALUES (NEW.recipient) ON CONFLICT DO NOTHING;
        UPDATE mail_counts SET direct_unread = direct_unread + (NEW.read_at IS NULL)::int,
            direct_unacked = direct_unacked + (NEW.acked_at IS NULL)::int WHERE agent = NEW.recipient;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER mail_counts_direct_insert AFTER INSERT ON messages
    FOR EACH ROW WHEN (NEW.recipient <> '*' AND NEW.sender <> NEW.recipient) EXECUTE FUNCTION mail_counts_direct();
CREATE TRIGGER mail_counts_direct_update AFTER UPDATE OF read_at, acked_at, sender, recipient ON messages
    FOR EACH ROW EXECUTE FUNCTION mail_counts_direct();
CREATE TRIGGER mail_counts_direct_delete AFTER DELETE ON messages
    FOR EACH ROW WHEN (OLD.recipient <> '*' AND OLD.sender <> OLD.recipient) EXECUTE FUNCTION mail_counts_direct();

CREATE FUNCTION broadcast_senders_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO broadcast_senders (sender) VALUES (NEW.sender) ON CONFLICT DO NOTHING;
        UPDATE broadcast_senders SET broadcasts = broadcasts + 1 WHERE sender = NEW.sender;
    ELSE
        UPDATE broadcast_senders SET broadcasts = broadcasts - 1 WHERE sender = OLD.sender;
        -- A broadcast deleted before its receipts takes their counts with
        -- it (a receipt counts only while its broadcast exists).
        UPDATE mail_counts c SET broadcasts_read = c.broadcasts_read - (b.read_at IS NOT NULL)::int,
            broadcasts_acked = c.broadcasts_acked - (b.acked_at IS NOT NULL)::int
        FROM broadcast_acks b WHERE b.message_id = OLD.id AND b.agent = c.agent AND c.agent <> OLD.sender;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER broadcast_senders_insert AFTER INSERT ON messages
    FOR EACH ROW WHEN (NEW.recipient = '*') EXECUTE FUNCTION broadcast_senders_count();
CREATE TRIGGER broadcast_senders_delete AFTER DELETE ON messages
    FOR EACH ROW WHEN (OLD.recipient = '*') EXECUTE FUNCTION broadcast_senders_count();

CREATE FUNCTION mail_counts_receipts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND EXISTS (SELECT 1 FROM messages m
            WHERE m.id = OLD.message_id AND m.recipient = '*' AND m.sender <> OLD.agent) THEN
        UPDATE mail_counts SET broadcasts_read = broadcasts_read - (OLD.read_at IS NOT NULL)::int,
            broadcasts_acked = broadcasts_acked - (OLD.acked_at IS NOT NULL)::int WHERE agent = OLD.agent;
    END IF;
    IF TG_OP <> 'DELETE' AND EXISTS (SELECT 1 FROM messages m
            WHERE m.id = NEW.message_id AND m.recipient = '*' AND m.sender <> NEW.agent) THEN
        INSERT INTO mail_counts (agent) VALUES (NEW.agent) ON CONFLICT DO NOTHING;
        UPDATE mail_counts SET broadcasts_read = broadcasts_read + (NEW.read_at IS NOT NULL)::int,
            broadcasts_acked = broadcasts_acked + (NEW.acked_at IS NOT NULL)::int WHERE agent = NEW.agent;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER mail_counts_receipt_insert AFTER INSERT ON broadcast_acks
    FOR EACH ROW EXECUTE FUNCTION mail_counts_receipts();
CREATE TRIGGER mail_counts_receipt_update AFTER UPDATE OF read_at, acked_at ON broadcast_acks
    FOR EACH ROW EXECUTE FUNCTION mail_counts_receipts();
CREATE TRIGGER mail_counts_receipt_delete AFTER DELETE ON broadcast_acks
    FOR EACH ROW EXECUTE FUNCTION mail_counts_receipts();
