-- Index-driven focus selection and resume reads (seed 002): pending tasks in
-- priority DESC, created_at ASC order, globally and per project; memory of
-- one scope newest first.
CREATE INDEX idx_tasks_focus_order ON tasks(status, priority DESC, created_at);
CREATE INDEX idx_tasks_project_focus_order ON tasks(project_id, status, priority DESC, created_at);
CREATE INDEX idx_memory_scope_updated ON memory(scope, scope_id, updated_at);
