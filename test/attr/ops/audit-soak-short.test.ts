import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runAttrSoak } from '../../../soak/attr-soak.ts';

test('short soak: 2,000 attributions, audit log rotated twice by the documented procedure, nothing lost, every checkpoint verifies', async () => {
  const r = await runAttrSoak({ attributions: 2_000, rotations: 2, concurrency: 8 });
  assert.equal(r.acknowledged, 2_000);
  assert.equal(r.refused, 0);
  assert.equal(r.audit_entries, 2_000);
  assert.equal(r.acknowledged_missing_from_log, 0);
  assert.equal(r.duplicate_event_ids_in_log, 0);
  assert.equal(r.rotations, 2);
  assert.equal(r.segments.length, 3);
  assert.ok(r.segments.every((s) => s.entries > 0 && s.verify_exit === 0), JSON.stringify(r.segments));
  assert.equal(r.passed, true);
});
