-- Garbage collection of packed chunks (docs/objects.md#garbage-collection, decision 116).
-- condemned_at: when a GC run found the stored form referenced by no retained manifest. Ingest does not
-- deduplicate against a condemned row (it writes a fresh copy, which replaces the row); a later run that
-- still finds it unreferenced after the grace period deletes it, one that finds it referenced clears it.
ALTER TABLE chunk_index ADD COLUMN condemned_at TEXT;
CREATE INDEX chunk_index_condemned_idx ON chunk_index (condemned_at);
-- One GC at a time across processes: a lease row with an expiry (a crashed holder's lease runs out).
CREATE TABLE gc_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
