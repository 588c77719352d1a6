-- The twin of SQLite's 096: full-text search over the grants of leases,
-- by the lease's name (the first field, which weighs more), its holder
-- and the port or name it was handed (the second), in one GIN index on
-- the expression search reads (sqlstore/search.go).
CREATE INDEX idx_lease_holders_search ON lease_holders USING GIN (bb_search_doc(name, agent || ' ' || value));
