-- AI compute manifests join the manifest list and explorer (issue 10, defect 13): the explorer groups by contract.
ALTER TABLE ai_manifests ADD COLUMN contract TEXT NOT NULL DEFAULT 'exact_bytes';
UPDATE ai_manifests SET contract = COALESCE(json_extract(body, '$.contract'), contract);
