-- Legal holds (docs/alerts.md#legal-hold): a policy-set hold on a tenant, an object prefix or a manifest.
CREATE TABLE legal_holds (
  id TEXT PRIMARY KEY,                 -- lh_
  tenant TEXT NOT NULL,
  scope TEXT NOT NULL,                 -- tenant | prefix | manifest
  target TEXT NOT NULL,                -- '' for tenant; 'bucket/key-prefix' for prefix; mf_ id for manifest
  reason TEXT NOT NULL,
  placed_by TEXT NOT NULL,
  placed_at TEXT NOT NULL,
  released_by TEXT,
  released_at TEXT
);
CREATE INDEX legal_holds_tenant_idx ON legal_holds (tenant, released_at);
