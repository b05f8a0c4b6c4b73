-- Foundation: work units, plans, the hash-chained ledger.
CREATE TABLE work_units (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  kind TEXT NOT NULL,
  logical_ref TEXT NOT NULL,
  requested_contract TEXT NOT NULL,
  state TEXT NOT NULL,
  metadata TEXT NOT NULL,
  payload_kind TEXT NOT NULL,          -- none | binary | json
  payload_json TEXT,
  payload_bytes BYTEA,
  payload_size BIGINT NOT NULL,
  payload_sha256 TEXT,
  created_by TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  last_plan_id TEXT,
  manifest_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX work_units_tenant_idx ON work_units (tenant, id);

CREATE TABLE plans (
  id TEXT PRIMARY KEY,
  work_unit_id TEXT NOT NULL REFERENCES work_units (id),
  tenant TEXT NOT NULL,
  contract TEXT NOT NULL,
  mode TEXT NOT NULL,
  risk TEXT NOT NULL,
  policy_bundle_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX plans_tenant_idx ON plans (tenant, id);
CREATE INDEX plans_work_unit_idx ON plans (work_unit_id);

CREATE TABLE ledger_events (
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  tenant TEXT,
  actor TEXT NOT NULL,
  work_unit_id TEXT,
  manifest_id TEXT,
  policy_bundle_id TEXT,
  trace_id TEXT,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX ledger_events_tenant_ts_idx ON ledger_events (tenant, ts);
CREATE INDEX ledger_events_type_idx ON ledger_events (type, seq);
