-- One board serves one git repository, whatever checkout (main work tree,
-- linked work trees, clones through bb serve) an agent works in: scopes
-- are stored relative to the top of the work tree they were given in.
-- This row records the repository the board serves (repo_id: the
-- fingerprint a clone sends through bb serve; '' until first known) and
-- whether older absolute scopes still wait to be made relative
-- (scopes = 'absolute'): SQL does not know the project directory, so the
-- first process that opens the board with it (bb, bb serve, bb mcp) turns
-- the absolute scopes under it into relative ones, in one transaction,
-- and sets scopes = 'relative'.
CREATE TABLE repository (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    scopes  TEXT NOT NULL DEFAULT 'relative',
    repo_id TEXT NOT NULL DEFAULT ''
);
INSERT INTO repository (id, scopes)
SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM reservations WHERE scope LIKE '/%' OR scope LIKE '_:%')
    THEN 'absolute' ELSE 'relative' END;
