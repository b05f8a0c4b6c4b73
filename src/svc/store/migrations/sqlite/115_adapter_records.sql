-- Workload adapters (docs/adapters.md): what a family-aware ingest recorded beside the byte manifest.
-- kind: table_version (lakehouse), stream_segment (stream), checkpoint / training_run (training).
CREATE TABLE adapter_records (
  id TEXT PRIMARY KEY,                 -- adr_
  tenant TEXT NOT NULL,
  adapter TEXT NOT NULL,               -- lakehouse | stream | training
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,               -- table, stream or run name
  seq INTEGER NOT NULL,                -- version / segment / checkpoint number within the subject
  manifest_id TEXT,                    -- the byte manifest (NULL for training runs)
  sha256 TEXT,
  bytes INTEGER NOT NULL,
  fingerprint TEXT,                    -- dataset digest (lakehouse), run fingerprint (training)
  facts TEXT NOT NULL,                 -- JSON: logical facts (schema, rows, column checksums, time range, tensors, result)
  created_at TEXT NOT NULL,
  last_read_at TEXT,                   -- stream segments: NULL until read back (the "unused logs" signal)
  UNIQUE (tenant, adapter, kind, subject, seq)
);
CREATE INDEX adapter_records_fingerprint_idx ON adapter_records (tenant, adapter, fingerprint);
CREATE INDEX adapter_records_manifest_idx ON adapter_records (manifest_id);
