-- Exact-cache keys are scoped by tenant (issue 10, defect 11): the same ck_ key in two tenants is two entries.
ALTER TABLE cache_entries DROP CONSTRAINT cache_entries_pkey;
ALTER TABLE cache_entries ADD PRIMARY KEY (tenant, key);
