-- Signed plugins (docs/plugins.md): one row per installed plugin id, the bundle as uploaded.
-- The signature is checked again from these bytes at every load and enable: a row here is
-- never trusted by itself.
CREATE TABLE plugins (
  id TEXT PRIMARY KEY,                 -- publisher.name
  version TEXT NOT NULL,
  kind TEXT NOT NULL,                  -- transform | verifier | adapter
  publisher TEXT NOT NULL,
  bundle_sha256 TEXT NOT NULL,         -- sha256 of manifest_json (the signed text)
  manifest_json TEXT NOT NULL,         -- the signed manifest, byte for byte
  signature TEXT,                      -- JSON {algorithm, publisher, value} or NULL (unsigned)
  files TEXT NOT NULL,                 -- JSON {path: base64}
  status TEXT NOT NULL,                -- enabled | disabled
  installed_at TEXT NOT NULL,
  installed_by TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL
);
