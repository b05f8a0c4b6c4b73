-- Scheduler: an optional webhook per job, notified (signed) on start and on a final state (docs/scheduler.md, Webhooks).
ALTER TABLE scheduler_jobs ADD COLUMN webhook_url TEXT;
