-- Expired cache entries are purged in the background, in batches, across every tenant (decision 184): both cache
-- tables get an index on expires_at alone, so a batch reads only expired entries. The exact cache's
-- (tenant, expires_at) index served no query (reads go by primary key) and cannot serve a range over every tenant:
-- it is replaced, so an AI cache miss still writes the same number of b-trees. Both new indexes grow mostly at their
-- end (an expiry is its store time plus a TTL, the gateway's always 24 h), so a store touches their last leaf.
-- IF NOT EXISTS: on a large table, create both indexes beforehand with CREATE INDEX CONCURRENTLY (same names)
-- and this migration does not hold the tables' write lock while it builds them (docs/decisions/184).
DROP INDEX IF EXISTS cache_entries_tenant_expiry_idx;
CREATE INDEX IF NOT EXISTS cache_entries_expiry_idx ON cache_entries (expires_at);
CREATE INDEX IF NOT EXISTS semantic_cache_expiry_idx ON semantic_cache_entries (expires_at);
