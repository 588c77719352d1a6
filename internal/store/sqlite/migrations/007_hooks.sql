-- Coding-agent hooks (bb hook): one agent identity per client session,
-- per-recipient delivery of mail into the agent's context, and board
-- settings (hooks.mode…). Same SQL on SQLite and PostgreSQL.

-- A client session (Claude Code, Codex, Gemini CLI, Cursor…) mapped to the
-- agent id it works as. client_pid is the client's process, which its MCP
-- servers share; reminded is the fingerprint of the last end-of-turn
-- reminder, so the same reminder is never given twice.
CREATE TABLE hook_sessions (
    client      TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    client_pid  BIGINT NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    last_seen   TEXT NOT NULL,
    reminded    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (client, session_id)
);
CREATE INDEX idx_hook_sessions_pid ON hook_sessions(client_pid, last_seen);
CREATE INDEX idx_hook_sessions_agent ON hook_sessions(agent_id);

-- "Delivered": the message reached the recipient's context (a hook injected
-- it), a state of its own before read and ack. One row per recipient.
CREATE TABLE mail_deliveries (
    message_id   TEXT NOT NULL,
    agent        TEXT NOT NULL,
    delivered_at TEXT NOT NULL,
    PRIMARY KEY (message_id, agent)
);

-- Board settings (bb config set hooks.mode warn).
CREATE TABLE board_config (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
