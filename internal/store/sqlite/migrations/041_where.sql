-- Where each agent works: the work tree (relative to the repository's main
-- work tree, or absolute when elsewhere), the branch checked out there and
-- the host, as its session last said (hooks, MCP, bb agent register/init).
ALTER TABLE agents ADD COLUMN worktree TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN branch TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN host TEXT NOT NULL DEFAULT '';

-- The files each agent edited through the edit check, with the branch it
-- edited them on: the merge-aware check warns another agent about to edit
-- such a file while that branch is not merged (docs/hooks.md). One row per
-- agent, branch and file (scope relative to the work tree's top).
CREATE TABLE branch_edits (
    agent_id  TEXT NOT NULL,
    branch    TEXT NOT NULL,
    path      TEXT NOT NULL,
    worktree  TEXT NOT NULL DEFAULT '',
    host      TEXT NOT NULL DEFAULT '',
    edited_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, branch, path)
);
CREATE INDEX idx_branch_edits_path ON branch_edits(path);
