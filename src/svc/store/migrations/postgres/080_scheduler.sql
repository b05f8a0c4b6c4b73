-- Energy-aware scheduler: durable job records and operator-loaded forecast points (docs/decisions/080-scheduler-job-record.md).
CREATE TABLE scheduler_jobs (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  mode TEXT NOT NULL,
  zone TEXT NOT NULL,
  priority INTEGER NOT NULL,
  work_unit_id TEXT,
  earliest_start TEXT NOT NULL,
  deadline TEXT NOT NULL,
  duration_s INTEGER NOT NULL,
  energy_kwh DOUBLE PRECISION NOT NULL,
  metadata TEXT NOT NULL,
  baseline_start TEXT NOT NULL,
  planned_start TEXT NOT NULL,
  run_at TEXT NOT NULL,
  baseline_gco2 DOUBLE PRECISION,
  planned_gco2 DOUBLE PRECISION,
  shift_minutes INTEGER NOT NULL,
  forecast_source TEXT NOT NULL,
  forecast_age_s INTEGER,
  plan_reason TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires_at TEXT,
  started_at TEXT,
  completed_at TEXT,
  outcome TEXT,
  actor TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX scheduler_jobs_due_idx ON scheduler_jobs (state, run_at);
CREATE INDEX scheduler_jobs_tenant_idx ON scheduler_jobs (tenant, id);

CREATE TABLE scheduler_forecast_points (
  zone TEXT NOT NULL,
  starts_at TEXT NOT NULL,
  ends_at TEXT NOT NULL,
  gco2_per_kwh DOUBLE PRECISION NOT NULL,
  source TEXT NOT NULL,
  loaded_at TEXT NOT NULL,
  PRIMARY KEY (zone, starts_at)
);
