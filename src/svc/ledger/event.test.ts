import assert from 'node:assert/strict';
import { test } from 'node:test';
import { committedEvent, rowToEvent, type LedgerRow } from './event.ts';

const row: LedgerRow = {
  seq: 7,
  id: 'evt_01',
  ts: '2026-01-01T00:00:00.000Z',
  type: 'manifest.written',
  tenant: 'acme',
  actor: 'a',
  work_unit_id: 'wu_1',
  manifest_id: 'mf_1',
  policy_bundle_id: null,
  trace_id: null,
  payload: '{"kind":"compute","n":[1,2]}',
  prev_hash: 'p',
  hash: 'h',
};

test('a committed event reads, spreads and serialises exactly like one read back from the store', () => {
  const lazy = committedEvent(row);
  const eager = rowToEvent(row);
  assert.deepEqual({ ...lazy }, eager);
  assert.equal(JSON.stringify(lazy), JSON.stringify(eager));
  assert.equal(lazy.payload, lazy.payload, 'parsed once, then the same object');
  lazy.payload = { replaced: true };
  assert.deepEqual(lazy.payload, { replaced: true });
});
