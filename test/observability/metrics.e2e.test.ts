/**
 * Metrics through the real HTTP server: every policy denial is counted
 * (plan-time contract denial, denied object delete), direct cache lookups
 * are counted (exact hit, semantic stale), byte counters count an object
 * once, and every `svc_bytes_avoided_total` reason is exported.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => s?.close());

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await s.call('GET', '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('a contract denial on /v1/work-units/plan counts in svc_policy_denials_total', async () => {
  const before = await metric('svc_policy_denials_total', '{action="semantic_summary"}');
  const res = await s.call('POST', '/v1/work-units/plan', { key: KEYS.acmeWriter, body: { kind: 'byte_object', logical_ref: 's3://b/doc', payload: { _svc_encoding: 'base64', data: 'ZG9j' }, transforms: ['semantic_summary'] } });
  assert.equal(res.status, 403);
  assert.equal(await metric('svc_policy_denials_total', '{action="semantic_summary"}'), before + 1);
});

test('a denied object delete counts in svc_policy_denials_total', async () => {
  assert.equal((await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'keep', key: 'k', body_text: 'precious' } })).status, 201);
  const before = await metric('svc_policy_denials_total', '{action="object.delete"}');
  const res = await s.call('POST', '/v1/s3/objects/delete', { key: ADMIN_KEY, body: { tenant: 'acme', bucket: 'keep', key: 'k' } });
  assert.equal(res.status, 403);
  assert.equal(await metric('svc_policy_denials_total', '{action="object.delete"}'), before + 1);
});

test('a direct exact lookup counts its hit and its miss', async () => {
  const key = `ck_${'b'.repeat(64)}`;
  assert.equal((await s.call('POST', '/v1/cache/store', { key: KEYS.acmeWriter, body: { key, value: { text: 'cached' }, verification: { type: 'non_empty_text' } } })).status, 200);
  const hits = await metric('svc_cache_hits_total', '{cache="exact"}');
  const misses = await metric('svc_cache_misses_total', '{cache="exact"}');
  assert.equal(((await (await s.call('POST', '/v1/cache/exact/lookup', { key: KEYS.acmeWriter, body: { key } })).json()) as { hit: boolean }).hit, true);
  assert.equal(((await (await s.call('POST', '/v1/cache/exact/lookup', { key: KEYS.acmeWriter, body: { key: `ck_${'c'.repeat(64)}` } })).json()) as { hit: boolean }).hit, false);
  assert.equal(await metric('svc_cache_hits_total', '{cache="exact"}'), hits + 1);
  assert.equal(await metric('svc_cache_misses_total', '{cache="exact"}'), misses + 1);
});

test('a direct semantic lookup answered stale counts in svc_ai_semantic_cache_stale_total', async () => {
  const scope = { domain: 'faq', query: 'What is the refund window?', policy_id: 'pb_1' };
  const stored = await s.call('POST', '/v1/cache/semantic/store', { key: KEYS.acmeWriter, body: { ...scope, source_fingerprints: ['doc:1@v1'], value: { text: '30 days' }, verification: { type: 'non_empty_text' } } });
  assert.equal(stored.status, 200, await stored.clone().text());
  const stale = await metric('svc_ai_semantic_cache_stale_total');
  const res = (await (await s.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.acmeWriter, body: { ...scope, source_fingerprints: ['doc:1@v2'], freshness: { max_age_seconds: 3600 } } })).json()) as { hit: boolean; stale: boolean };
  assert.deepEqual([res.hit, res.stale], [false, true]);
  assert.equal(await metric('svc_ai_semantic_cache_stale_total'), stale + 1);
});

test('an object is counted once in the byte counters; every bytes_avoided reason is exported', async () => {
  const before = await metric('svc_work_unit_bytes_in_total');
  assert.equal((await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'counted', key: 'once', body_text: 'x'.repeat(1000) } })).status, 201);
  assert.equal(await metric('svc_work_unit_bytes_in_total'), before + 1000);
  for (const reason of ['dedupe', 'compression', 'lifecycle']) {
    assert.match(await (await s.call('GET', '/metrics')).text(), new RegExp(`svc_bytes_avoided_total\\{reason="${reason}"\\} \\d+`));
  }
  assert.equal(await metric('svc_bytes_avoided_total', '{reason="lifecycle"}'), 0);
});
