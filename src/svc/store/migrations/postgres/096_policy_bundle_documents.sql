-- Policy bundles every svc process can adopt (docs/deployment.md, decision 097): the document of every bundle that
-- was put in force by publish, reload or a bundle switch, keyed by its content hash. Files under
-- <state_dir>/policy/bundles stay each process's working copy; this table is what the processes share.
CREATE TABLE policy_bundle_documents (
  hash TEXT PRIMARY KEY,
  bundle_id TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  document TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX policy_bundle_documents_name_idx ON policy_bundle_documents (name, version);
