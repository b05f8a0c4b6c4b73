-- Exact-cache keys are scoped by tenant (issue 10, defect 11): the same ck_ key in two tenants is two entries.
-- SQLite cannot change a primary key in place: copy into the new shape and swap.
CREATE TABLE cache_entries_per_tenant (
  tenant TEXT NOT NULL,
  key TEXT NOT NULL,                  -- ck_ + sha256, unique within its tenant
  value TEXT NOT NULL,                -- JSON
  verification TEXT NOT NULL,         -- JSON verifier specification
  verifier TEXT NOT NULL,             -- name@version that passed at store time
  origin TEXT NOT NULL,               -- gateway | client
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (tenant, key)
);
INSERT INTO cache_entries_per_tenant (tenant, key, value, verification, verifier, origin, created_at, expires_at)
  SELECT tenant, key, value, verification, verifier, origin, created_at, expires_at FROM cache_entries;
DROP TABLE cache_entries;
ALTER TABLE cache_entries_per_tenant RENAME TO cache_entries;
CREATE INDEX cache_entries_tenant_expiry_idx ON cache_entries (tenant, expires_at);
