-- Full-text search (PostgreSQL text search) over messages and mail
-- (subject, body), tasks (title, description), memory (key, value) and
-- artifacts (path, description): one GIN index per table on an expression,
-- so PostgreSQL keeps each index in the transaction of the write.
--
-- Words are as in the SQLite index: ASCII punctuation separates words
-- ("internal/server/ui.go" is three words), the 'simple' configuration
-- folds case and neither stems nor drops stop words. The first field
-- weighs more (A) than the second (B).

CREATE FUNCTION bb_search_doc(first text, second text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple'::regconfig, regexp_replace(first, '[[:punct:]]+', ' ', 'g')), 'A') ||
           setweight(to_tsvector('simple'::regconfig, regexp_replace(second, '[[:punct:]]+', ' ', 'g')), 'B')
$$;

CREATE INDEX idx_messages_search ON messages USING GIN (bb_search_doc(subject, body));
CREATE INDEX idx_tasks_search ON tasks USING GIN (bb_search_doc(title, description));
CREATE INDEX idx_memory_search ON memory USING GIN (bb_search_doc(key, value));
CREATE INDEX idx_artifacts_search ON artifacts USING GIN (bb_search_doc(path, description));
