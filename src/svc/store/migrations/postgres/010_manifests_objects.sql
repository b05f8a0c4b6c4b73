-- Exact-bytes path: manifests, the chunk index, object gateway pointers, multipart uploads.
CREATE TABLE manifests (
  id TEXT PRIMARY KEY,
  work_unit_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  kind TEXT NOT NULL,
  logical_ref TEXT NOT NULL,
  contract TEXT NOT NULL,
  mode TEXT NOT NULL,
  state TEXT NOT NULL,                 -- active | tombstoned | quarantined
  schema_version INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  bytes_in BIGINT NOT NULL,
  bytes_stored BIGINT NOT NULL,
  chunk_count INTEGER NOT NULL,
  chunk_scope TEXT NOT NULL,
  verifier_status TEXT NOT NULL,
  cache_result TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  policy_bundle_id TEXT,
  plan_id TEXT,
  state_reason TEXT,                   -- reason code of the last state change
  body TEXT NOT NULL,                  -- the full manifest (chunk list, chunking, stats) as JSON
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX manifests_tenant_idx ON manifests (tenant, id);
CREATE INDEX manifests_ref_idx ON manifests (tenant, logical_ref, id);
CREATE INDEX manifests_work_unit_idx ON manifests (work_unit_id);

CREATE TABLE chunks (
  scope TEXT NOT NULL,
  id TEXT NOT NULL,
  codec TEXT NOT NULL,
  raw_length BIGINT NOT NULL,
  stored_length BIGINT NOT NULL,
  first_manifest_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (scope, id, codec)
);

CREATE TABLE objects (
  tenant TEXT NOT NULL,
  bucket TEXT NOT NULL,
  object_key TEXT NOT NULL,
  manifest_id TEXT NOT NULL,
  work_unit_id TEXT NOT NULL,
  state TEXT NOT NULL,                 -- active | tombstoned
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  content_type TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant, bucket, object_key)
);

CREATE TABLE uploads (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  bucket TEXT NOT NULL,
  object_key TEXT NOT NULL,
  state TEXT NOT NULL,                 -- open | completed | aborted
  mode TEXT,
  content_type TEXT,
  created_by TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  manifest_id TEXT,
  work_unit_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX uploads_tenant_idx ON uploads (tenant, id);

CREATE TABLE upload_parts (
  upload_id TEXT NOT NULL REFERENCES uploads (id),
  part_number INTEGER NOT NULL,
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (upload_id, part_number)
);
