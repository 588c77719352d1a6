-- Coding-agent hooks (bb hook): one agent identity per client session,
-- per-recipient delivery of mail into the agent's context, and board
-- settings (hooks.mode…). PostgreSQL twin of the SQLite migration 007.

-- A client session (Claude Code, Codex, Gemini CLI, Cursor…) mapped to the
-- agent id it works as. client_pid is the client's process, which its MCP
-- servers share; reminded is the fingerprint of the last end-of-turn
-- reminder, so the same reminder is never given twice.
CREATE TABLE hook_sessions (
    client      TEXT COLLATE "C" NOT NULL,
    session_id  TEXT COLLATE "C" NOT NULL,
    agent_id    TEXT COLLATE "C" NOT NULL,
    client_pid  BIGINT NOT NULL DEFAULT 0,
    created_at  TEXT COLLATE "C" NOT NULL,
    last_seen   TEXT COLLATE "C" NOT NULL,
    reminded    TEXT COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (client, session_id)
);
CREATE INDEX idx_hook_sessions_pid ON hook_sessions(client_pid, last_seen);
CREATE INDEX idx_hook_sessions_agent ON hook_sessions(agent_id);

-- "Delivered": the message reached the recipient's context (a hook injected
-- it), a state of its own before read and ack. One row per recipient.
CREATE TABLE mail_deliveries (
    message_id   TEXT COLLATE "C" NOT NULL,
    agent        TEXT COLLATE "C" NOT NULL,
    delivered_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (message_id, agent)
);

-- Board settings (bb config set hooks.mode warn).
CREATE TABLE board_config (
    key        TEXT COLLATE "C" PRIMARY KEY,
    value      TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
);
