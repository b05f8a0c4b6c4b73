-- Semantic cache: the lookup key of an entry stored from text (a digest of its content-word stems, numbers and
-- symbols; docs/semantic-cache.md). Every entry with the query's key is a candidate however old it is, so a tenant's
-- 100,000th entry is found as fast as its newest. Entries stored before this migration, or from a vector alone, have
-- no key and are still found by the scan of the newest entries.
ALTER TABLE semantic_cache_entries ADD COLUMN lookup_key TEXT;
CREATE INDEX semantic_cache_lookup_key_idx ON semantic_cache_entries (tenant, domain, embedder, lookup_key);
