-- Blackboard schema v1 (SQLite dialect). One set of tables serves every
-- surface: bb, bb agent, agent-mail, vybe, MCP and HTTP.
-- Timestamps are TEXT in UTC, RFC 3339 with microseconds and "+00:00", so
-- text order is time order. Booleans are INTEGER 0/1 (portable to PostgreSQL).

CREATE TABLE agents (
    id               TEXT PRIMARY KEY,
    display_name     TEXT NOT NULL DEFAULT '',
    role             TEXT NOT NULL DEFAULT '',
    registered       INTEGER NOT NULL DEFAULT 0,
    current_task     TEXT NOT NULL DEFAULT '',
    progress         INTEGER NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 100),
    status           TEXT NOT NULL DEFAULT 'idle',
    blockers         TEXT,
    created_at       TEXT NOT NULL,
    last_seen        TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 1,
    event_cursor     INTEGER NOT NULL DEFAULT 0,
    read_cursor      INTEGER NOT NULL DEFAULT 0, -- newest message seq this agent has seen in bb log
    focus_task_id    TEXT NOT NULL DEFAULT '',
    focus_project_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_agents_last_seen ON agents(last_seen);

-- Messages: the columns and index names of Agent Mail (seed 004 TC9) first,
-- then the extra columns of the other surfaces, each with a default so that
-- a row inserted with only the TC9 columns is valid everywhere.
CREATE TABLE messages (
    id           TEXT PRIMARY KEY,
    sender       TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    subject      TEXT NOT NULL DEFAULT '',
    body         TEXT NOT NULL DEFAULT '',
    refs         TEXT,
    reply_to     TEXT,
    type         TEXT NOT NULL DEFAULT 'direct',
    ttl_hours    INTEGER DEFAULT 24,
    created      TEXT NOT NULL,
    read_at      TEXT,
    acked_at     TEXT,
    seq          INTEGER UNIQUE,
    tags         TEXT NOT NULL DEFAULT '[]',
    priority     TEXT NOT NULL DEFAULT 'normal',
    bb_refs      TEXT NOT NULL DEFAULT '[]',
    category     TEXT NOT NULL DEFAULT '',
    thread_id    TEXT NOT NULL DEFAULT '',
    bead_id      TEXT NOT NULL DEFAULT '',
    requires_ack INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_messages_recipient ON messages(recipient);
CREATE INDEX idx_messages_sender ON messages(sender);
CREATE INDEX idx_messages_created ON messages(created);
CREATE INDEX idx_messages_reply_to ON messages(reply_to) WHERE reply_to IS NOT NULL;
CREATE INDEX idx_messages_expiring ON messages(created) WHERE ttl_hours IS NOT NULL;
CREATE INDEX idx_messages_bead ON messages(bead_id, created) WHERE bead_id <> '';

-- Rows written by other tools (Agent Mail's tests insert TC9 columns only)
-- get the next small sequence number so Blackboard can show them too.
CREATE TRIGGER messages_assign_seq AFTER INSERT ON messages
WHEN NEW.seq IS NULL
BEGIN
    UPDATE messages SET seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages)
    WHERE id = NEW.id;
END;

CREATE TABLE broadcast_acks (
    message_id TEXT NOT NULL,
    agent      TEXT NOT NULL,
    read_at    TEXT,
    acked_at   TEXT,
    PRIMARY KEY (message_id, agent)
);

-- Tags of Blackboard messages, for index-driven tag filters.
CREATE TABLE message_tags (
    message_id TEXT NOT NULL,
    tag        TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    PRIMARY KEY (message_id, tag)
);
CREATE INDEX idx_message_tags_tag ON message_tags(tag, seq);

CREATE TABLE artifacts (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    uid          TEXT NOT NULL DEFAULT '',
    path         TEXT NOT NULL,
    produced_by  TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    version      TEXT,
    bb_refs      TEXT NOT NULL DEFAULT '[]',
    task_id      TEXT NOT NULL DEFAULT '',
    event_id     INTEGER NOT NULL DEFAULT 0,
    content_type TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
-- Board artifacts are keyed by path; task attachments (vybe) are not.
CREATE UNIQUE INDEX idx_artifacts_board_path ON artifacts(path) WHERE task_id = '';
CREATE INDEX idx_artifacts_produced_by ON artifacts(produced_by);
CREATE INDEX idx_artifacts_task ON artifacts(task_id, id) WHERE task_id <> '';

-- Index of "where:what:ref" links of messages and artifacts.
CREATE TABLE refs (
    owner_kind TEXT NOT NULL,          -- 'message' | 'artifact'
    owner_id   TEXT NOT NULL,          -- message UUID or artifact id
    ref_where  TEXT NOT NULL,
    ref_what   TEXT NOT NULL,
    ref_ref    TEXT NOT NULL,
    numeric    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (owner_kind, owner_id, ref_where, ref_what, ref_ref)
);
CREATE INDEX idx_refs_lookup ON refs(ref_where, ref_what, ref_ref);

-- The timeline. seq is the cursor every reader follows; AUTOINCREMENT
-- guarantees it never goes back, even after deletes.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL,
    agent      TEXT NOT NULL DEFAULT '',
    to_agent   TEXT NOT NULL DEFAULT '',
    bead_id    TEXT NOT NULL DEFAULT '',
    task_id    TEXT NOT NULL DEFAULT '',
    project_id TEXT NOT NULL DEFAULT '',
    scope      TEXT NOT NULL DEFAULT '',
    message    TEXT NOT NULL DEFAULT '',
    payload    TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    archived   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_events_type ON events(type, seq);
CREATE INDEX idx_events_agent ON events(agent, seq);
CREATE INDEX idx_events_bead ON events(bead_id, seq) WHERE bead_id <> '';
CREATE INDEX idx_events_task ON events(task_id, seq) WHERE task_id <> '';

-- File reservations. History is the rows themselves (state changes, never deleted).
CREATE TABLE reservations (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,          -- canonical absolute path, no trailing '/' or '*'
    wildcard    INTEGER NOT NULL DEFAULT 0, -- 1 when reserved as "dir/*"
    agent_id    TEXT NOT NULL,
    bead_id     TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'active', -- active | released | expired
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    released_at TEXT
);
CREATE INDEX idx_reservations_active_scope ON reservations(scope) WHERE state = 'active';
CREATE INDEX idx_reservations_agent ON reservations(agent_id, state);
CREATE INDEX idx_reservations_bead ON reservations(bead_id, state);

-- Tasks (vybe) — what bead_ids in mail and reservations refer to.
CREATE TABLE tasks (
    id             TEXT PRIMARY KEY,
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'pending',
    priority       INTEGER NOT NULL DEFAULT 0,
    project_id     TEXT NOT NULL DEFAULT '',
    blocked_reason TEXT NOT NULL DEFAULT '',
    owner          TEXT NOT NULL DEFAULT '',
    version        INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX idx_tasks_status ON tasks(status, priority, created_at);
CREATE INDEX idx_tasks_project ON tasks(project_id, status);
CREATE INDEX idx_tasks_owner ON tasks(owner, status);

CREATE TABLE task_deps (
    task_id    TEXT NOT NULL,
    depends_on TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (task_id, depends_on)
);
CREATE INDEX idx_task_deps_depends_on ON task_deps(depends_on);

CREATE TABLE memory (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    value_type TEXT NOT NULL DEFAULT 'string',
    scope      TEXT NOT NULL DEFAULT 'global',
    scope_id   TEXT NOT NULL DEFAULT '',
    expires_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (scope, scope_id, key)
);
CREATE INDEX idx_memory_expires ON memory(expires_at) WHERE expires_at IS NOT NULL;

-- Idempotency: the stored reply of a mutation made with a request id.
CREATE TABLE idempotency (
    agent      TEXT NOT NULL,
    request_id TEXT NOT NULL,
    command    TEXT NOT NULL,
    reply      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (agent, request_id)
);
