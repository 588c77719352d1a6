-- Retention (bb config set retention.receipts / retention.notifications)
-- finds the oldest delivery and notification records by time, a batch at
-- a time: without these indexes each batch would read the whole table
-- inside its write transaction.
CREATE INDEX IF NOT EXISTS idx_mail_deliveries_at ON mail_deliveries(delivered_at);
CREATE INDEX IF NOT EXISTS idx_attention_notified_at ON attention_notified(sent_at);
