-- A broadcast adds to its sender's running total (migration 027) with one
-- statement instead of two (insert the row if missing, then add one): the
-- trigger runs on every post.
DROP TRIGGER broadcast_senders_insert;
CREATE TRIGGER broadcast_senders_insert AFTER INSERT ON messages
WHEN NEW.recipient = '*'
BEGIN
    INSERT INTO broadcast_senders (sender, broadcasts) VALUES (NEW.sender, 1)
        ON CONFLICT (sender) DO UPDATE SET broadcasts = broadcasts + 1;
END;
