-- Benchmark runs started through /v1/benchmarks (docs/benchmarks.md). `running_slot` is 1 while a
-- run is in progress and NULL after: its UNIQUE constraint makes "one run at a time" hold across
-- every svc process sharing the database.
CREATE TABLE benchmark_runs (
  id TEXT PRIMARY KEY,
  suite TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
  running_slot INTEGER UNIQUE CHECK (running_slot = 1),
  budget TEXT NOT NULL,
  progress TEXT NOT NULL,
  actor TEXT NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  finished_at TEXT,
  failure_reason TEXT,
  results TEXT,
  markdown TEXT,
  results_sha256 TEXT
);
