-- Scheduler: the contract a job runs under, asked of policy before shifting it (docs/scheduler.md, Policy bounds; decision 089).
ALTER TABLE scheduler_jobs ADD COLUMN contract TEXT NOT NULL DEFAULT 'exact_bytes';
