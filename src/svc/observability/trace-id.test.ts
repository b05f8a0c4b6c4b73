import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newTraceId, traceIdFrom } from './trace-id.ts';

test('fresh trace ids are 32 lowercase hex characters and do not repeat across refills of the random pool', () => {
  const ids = new Set<string>();
  // 4 KiB pool / 16 bytes = 256 ids per refill: 2,000 ids cross several refills.
  for (let i = 0; i < 2000; i++) {
    const id = newTraceId();
    assert.match(id, /^[0-9a-f]{32}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 2000);
});

test('an incoming traceparent keeps its trace id; an invalid one gets a fresh id', () => {
  assert.equal(traceIdFrom('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'), '0af7651916cd43dd8448eb211c80319c');
  assert.match(traceIdFrom('garbage'), /^[0-9a-f]{32}$/);
});
