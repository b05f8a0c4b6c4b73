-- Semantic cache: a domain's calibrated threshold, measured on the tenant's labelled pairs (docs/semantic-cache.md, Calibration).
CREATE TABLE semantic_cache_calibrations (
  tenant TEXT NOT NULL,
  domain TEXT NOT NULL,
  embedder TEXT NOT NULL,
  id TEXT NOT NULL,
  threshold DOUBLE PRECISION NOT NULL,
  max_false_accept DOUBLE PRECISION NOT NULL,
  false_accept_rate DOUBLE PRECISION NOT NULL,
  hit_rate DOUBLE PRECISION NOT NULL,
  negatives INTEGER NOT NULL,
  positives INTEGER NOT NULL,
  actor TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant, domain, embedder)
);
