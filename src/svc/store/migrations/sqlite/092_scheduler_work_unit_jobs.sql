-- Scheduler: jobs svc runs itself (kind work_units): the stored work units to execute and what came of them (docs/scheduler.md, Job kinds).
ALTER TABLE scheduler_jobs ADD COLUMN work_unit_ids TEXT;
ALTER TABLE scheduler_jobs ADD COLUMN result TEXT;
