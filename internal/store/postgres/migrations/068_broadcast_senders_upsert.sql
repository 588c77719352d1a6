-- A broadcast adds to its sender's running total (migration 027) with one
-- statement instead of two (insert the row if missing, then add one): the
-- trigger runs on every post.
CREATE OR REPLACE FUNCTION broadcast_senders_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO broadcast_senders (sender, broadcasts) VALUES (NEW.sender, 1)
            ON CONFLICT (sender) DO UPDATE SET broadcasts = broadcast_senders.broadcasts + 1;
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
