-- The AI record journal (docs/decisions/141): on SQLite, an AI request's work unit, plan and compute
-- manifest are committed as ONE row here, in the same transaction as its ledger events, and moved into
-- work_units / plans / ai_manifests in batches later (before any read of those tables). One row in a
-- table without secondary indexes touches one or two pages per commit, where the three tables and
-- their eight indexes touched ~12 (a sequential request's commit wrote 26 WAL pages, now ~14).
-- PostgreSQL writes the three rows directly and has no such table.
CREATE TABLE ai_record_journal (
  seq INTEGER PRIMARY KEY,
  body TEXT NOT NULL,                 -- JSON: work_unit, plan, plan_created_by, manifest (no prompt or answer text)
  failed TEXT                         -- why the row could not be moved (kept for an operator; never retried)
);
