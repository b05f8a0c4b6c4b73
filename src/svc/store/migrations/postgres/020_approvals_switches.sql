-- Policy area: signed approvals and the admin switch state.
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  contract TEXT NOT NULL,
  bundle_id TEXT NOT NULL,
  bundle_hash TEXT NOT NULL,
  work_unit_id TEXT,
  single_use INTEGER NOT NULL,
  actor TEXT NOT NULL,
  reason TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  revoked_by TEXT,
  used_at TEXT
);
CREATE INDEX approvals_tenant_idx ON approvals (tenant, id);

-- One row per switch scope; today only 'global'. The state is one JSON document (src/svc/rollout/switches.ts).
CREATE TABLE admin_switches (
  scope TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL
);
