-- What a notifier (bb notify, bb serve --webhook) has told each of its
-- channels: a webhook (named by a hash of its URL, never the URL, which
-- may hold a secret) or the desktop. A restarted notifier sends only what
-- it has not delivered. item_id is the attention item's id (overview,
-- with ":escalated" for an escalation); rows older than 30 days are
-- forgotten when the channel records again.
CREATE TABLE attention_notified (
    channel  TEXT NOT NULL,
    item_id  TEXT NOT NULL,
    sent_at  TEXT NOT NULL,
    PRIMARY KEY (channel, item_id)
);
