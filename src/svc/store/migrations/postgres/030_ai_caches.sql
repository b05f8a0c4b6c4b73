-- AI gateway and caches: exact cache entries, the semantic cache index, compute manifests of AI work units.
CREATE TABLE cache_entries (
  key TEXT PRIMARY KEY,               -- ck_ + sha256; owned by one tenant
  tenant TEXT NOT NULL,
  value TEXT NOT NULL,                -- JSON
  verification TEXT NOT NULL,         -- JSON verifier specification
  verifier TEXT NOT NULL,             -- name@version that passed at store time
  origin TEXT NOT NULL,               -- gateway | client
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX cache_entries_tenant_expiry_idx ON cache_entries (tenant, expires_at);

CREATE TABLE semantic_cache_entries (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  domain TEXT NOT NULL,
  embedder TEXT NOT NULL,
  normalised_query TEXT,
  embedding BYTEA NOT NULL,           -- float64 little-endian
  source_fingerprints TEXT NOT NULL,  -- JSON array, sorted
  policy_id TEXT NOT NULL,
  value TEXT NOT NULL,
  verification TEXT NOT NULL,
  verifier TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX semantic_cache_partition_idx ON semantic_cache_entries (tenant, domain, embedder, created_at);

CREATE TABLE ai_manifests (
  id TEXT PRIMARY KEY,                -- mf_
  work_unit_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  cache TEXT NOT NULL,
  route TEXT,
  fallback_used INTEGER NOT NULL,
  trace_id TEXT NOT NULL,
  body TEXT NOT NULL,                 -- the compute manifest (JSON; no prompt or answer text)
  created_at TEXT NOT NULL
);
CREATE INDEX ai_manifests_tenant_idx ON ai_manifests (tenant, id);
CREATE INDEX ai_manifests_work_unit_idx ON ai_manifests (work_unit_id);
