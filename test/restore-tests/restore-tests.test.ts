/**
 * Rehydration restore tests (issue 17) through the real server and CLI, on
 * SQLite and PostgreSQL: each kind passes on a healthy store and fails for
 * the right reason — a corrupted chunk, a missing chunk of a critical
 * dataset, a stale cache source, a verifier that no longer holds, an
 * unreadable old manifest; table_logical without tables is not applicable, never passed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import type { RestoreTestResult } from '../../src/svc/restore-tests/restore-test.ts';
import { svcObjectFingerprint } from '../../src/svc/restore-tests/source-fingerprint.ts';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import type { ChunkCodec } from '../../src/svc/chunking/chunk-codec.ts';
import { flipStoredByte, removeStoredChunk } from '../helpers/chunk-damage.ts';

type Json = Record<string, any>;

function bytes(seed: number, n = 150_000): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7919 + seed * 104729) % 251;
  return b;
}

for (const engine of engines()) {
  describe(`restore tests on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const put = async (bucket: string, key: string, body: Buffer) => {
      const r = await s.call('POST', '/v1/s3/objects', { body: { tenant: 'acme', bucket, key, body_base64: body.toString('base64') } });
      assert.equal(r.status, 201, await r.clone().text());
      return (await r.json()) as Json;
    };
    const runTest = async (body: Json, key: string = ADMIN_KEY) => {
      const r = await s.call('POST', '/v1/admin/restore-tests', { key, body });
      assert.equal(r.status, 200, await r.clone().text());
      return ((await r.json()) as { result: RestoreTestResult }).result;
    };
    const manifest = async (id: string) => (await (await s.call('GET', `/v1/manifests/${id}`)).json()) as Json;
    const chunkOf = (m: Json, i = 0) => ({ chunk_scope: m.chunk_scope as string, id: m.chunks[i].id as string, codec: m.chunks[i].codec as ChunkCodec });
    const events = async (type: string) => ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: [type], limit: 1000 } })).json()) as { events: Json[] }).events;

    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('bad input and roles: clear 4xx, nothing run', async () => {
      for (const body of [{}, { kind: 'nope' }, { kind: 'sampled_exact', sample_size: 0 }, { kind: 'critical_full', prefixes: [] }, { kind: 'sampled_exact', extra: true }]) {
        const r = await s.call('POST', '/v1/admin/restore-tests', { body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(((await r.json()) as Json).error.code, 'invalid_request');
      }
      assert.equal((await s.call('POST', '/v1/admin/restore-tests', { key: KEYS.acmeReader, body: { kind: 'sampled_exact' } })).status, 403);
      assert.equal((await s.call('POST', '/v1/admin/restore-tests', { key: null, body: { kind: 'sampled_exact' } })).status, 401);
      assert.equal((await events('restore_test.completed')).length, 0);
    });

    test('sampled_exact passes on a healthy store, then fails on a corrupted chunk: quarantine, incident, exit 3', async () => {
      const objects = await Promise.all([1, 2, 3].map((i) => put('sampled', `o-${i}`, bytes(i))));
      const healthy = await runTest({ kind: 'sampled_exact', tenant: 'acme', sample_size: 10 });
      assert.equal(healthy.status, 'passed');
      assert.equal(healthy.checked, 3);
      const cli = await runSvc(['--json', 'restore-test', 'run', '--kind', 'sampled_exact', '--tenant', 'acme'], { SVC_URL: s.url, SVC_API_KEY: KEYS.operator });
      assert.equal(cli.status, 0, cli.stderr);

      const victim = await manifest(objects[1]!.manifest_id);
      await flipStoredByte(s.app.objects.chunkBackend, chunkOf(victim), 7);
      const failed = await runSvc(['--json', 'restore-test', 'run', '--kind', 'sampled_exact', '--tenant', 'acme'], { SVC_URL: s.url, SVC_API_KEY: KEYS.operator });
      assert.equal(failed.status, 3, failed.stderr);
      const result = (JSON.parse(failed.stdout) as { result: RestoreTestResult }).result;
      assert.equal(result.status, 'failed');
      assert.deepEqual(result.failures.map((f) => f.manifest_id), [victim.manifest_id]);
      assert.equal(result.failures[0]!.chunk_id, victim.chunks[0].id);
      assert.equal((await manifest(victim.manifest_id)).state, 'quarantined');
      assert.ok((await events('incident.rehydration_failed')).some((e) => e.manifest_id === victim.manifest_id));
      const done = (await events('restore_test.completed')).filter((e) => e.payload.kind === 'sampled_exact');
      assert.deepEqual(done.map((e) => e.payload.status), ['passed', 'passed', 'failed']);
      // Quarantined manifests are known bad: the next sample skips them and passes.
      assert.equal((await runTest({ kind: 'sampled_exact', tenant: 'acme' })).status, 'passed');
    });

    test('critical_full restores every manifest under the critical prefixes; a missing chunk fails it', async () => {
      assert.equal((await runTest({ kind: 'critical_full' })).status, 'not_applicable');
      const a = await put('finance', 'ledger-2025.csv', bytes(11));
      await put('finance', 'ledger-2026.csv', bytes(12));
      await put('scratch', 'tmp.bin', bytes(13));
      const ok = await runTest({ kind: 'critical_full', prefixes: ['s3://finance/'] });
      assert.equal(ok.status, 'passed');
      assert.equal(ok.checked, 2);
      await removeStoredChunk(s.app.objects.chunkBackend, chunkOf(await manifest(a.manifest_id)));
      const bad = await runTest({ kind: 'critical_full', prefixes: ['s3://finance/'] });
      assert.equal(bad.status, 'failed');
      assert.equal(bad.failures[0]!.manifest_id, a.manifest_id);
    });

    test('a deleted object whose retention expired (its chunks garbage-collected) is skipped, not a 404 of the whole run', async () => {
      const gone = await put('archive', 'expired.bin', bytes(21));
      await put('archive', 'kept.bin', bytes(22));
      const admin = { principal: makePrincipal('test-admin', ['admin']), traceId: 'tr_rt_expired' } as never;
      await s.app.objects.manifests.tombstone(admin, await s.app.objects.manifests.get(admin, gone.manifest_id), 'test_delete');
      // What garbage collection does past the retention: mark it, then its chunks go.
      assert.equal(await s.app.store.manifests.markRetentionExpired(gone.manifest_id), true);
      await removeStoredChunk(s.app.objects.chunkBackend, chunkOf(await manifest(gone.manifest_id)));
      const full = await runTest({ kind: 'critical_full', prefixes: ['s3://archive/'] });
      assert.deepEqual([full.status, full.checked], ['passed', 1]);
      const sampled = await runTest({ kind: 'sampled_exact', tenant: 'acme', sample_size: 1000 });
      assert.ok(!sampled.failures.some((f) => f.manifest_id === gone.manifest_id), JSON.stringify(sampled.failures));
    });

    test('table_logical is not applicable while no table is recorded, never passed (test/adapters/lakehouse.test.ts covers tables)', async () => {
      const r = await runTest({ kind: 'table_logical' });
      assert.equal(r.status, 'not_applicable');
      assert.match(String(r.details['reason']), /no table versions/);
    });

    test('cache_source invalidates entries whose svc-object source changed or whose verifier no longer holds', async () => {
      const doc = await put('docs', 'handbook.txt', Buffer.from('remote work is allowed on fridays'));
      const fp = svcObjectFingerprint('docs', 'handbook.txt', doc.output.sha256);
      const semantic = { tenant: 'acme', domain: 'faq', query: 'may I work remotely on fridays', source_fingerprints: [fp], policy_id: 'p1' };
      const stored = await s.call('POST', '/v1/cache/semantic/store', { body: { ...semantic, value: { text: 'yes, on fridays' }, verification: { type: 'non_empty_text' } } });
      assert.equal(stored.status, 200, await stored.clone().text());
      const key = `ck_${createHash('sha256').update('restore-test-entry').digest('hex')}`;
      assert.equal((await s.call('POST', '/v1/cache/store', { body: { tenant: 'acme', key, value: { answer: 42 }, verification: { type: 'json_shape', required_keys: ['answer'] } } })).status, 200);
      const healthy = await runTest({ kind: 'cache_source', tenant: 'acme' });
      assert.equal(healthy.status, 'passed');
      assert.equal(healthy.checked, 2);

      // The source document changes; a stored value is damaged behind svc's back.
      await put('docs', 'handbook.txt', Buffer.from('remote work is no longer allowed'));
      const entry = await s.app.store.cacheEntries.get('acme', key);
      await s.app.store.cacheEntries.put({ ...entry!, value: { other: 1 } });
      const r = await runTest({ kind: 'cache_source', tenant: 'acme' });
      assert.equal(r.status, 'failed');
      assert.equal(r.details['invalidated'], 2);
      assert.ok(r.failures.some((f) => f.entry?.startsWith('semantic:') && /changed/.test(f.reason)));
      assert.ok(r.failures.some((f) => f.entry === `exact:${key}` && /no longer passes/.test(f.reason)));
      const lookup = (await (await s.call('POST', '/v1/cache/semantic/lookup', { body: { ...semantic, freshness: { max_age_seconds: 3600 } } })).json()) as Json;
      assert.equal(lookup.hit, false);
      assert.equal(((await (await s.call('POST', '/v1/cache/exact/lookup', { body: { tenant: 'acme', key } })).json()) as Json).hit, false);
      assert.equal((await runTest({ kind: 'cache_source', tenant: 'acme' })).status, 'passed');
    });

    test('manifest_migration reads older manifests through the versioned reader; an unreadable one fails it', async () => {
      const ok = await runTest({ kind: 'manifest_migration' });
      assert.equal(ok.status, 'passed');
      assert.equal(ok.details['older_manifests'], 0);
      const m = await put('legacy', 'old.bin', bytes(21));
      // A manifest row left by a schema version this build does not read.
      const row = await s.app.store.db.get<{ body: string }>('SELECT body FROM manifests WHERE id = $1', [m.manifest_id]);
      await s.app.store.db.run('UPDATE manifests SET body = $1 WHERE id = $2', [JSON.stringify({ ...JSON.parse(row!.body), schema_version: 0 }), m.manifest_id]);
      const bad = await runTest({ kind: 'manifest_migration' });
      assert.equal(bad.status, 'failed');
      assert.deepEqual(bad.failures, [{ manifest_id: m.manifest_id, reason: 'unreadable: unsupported_schema_version' }]);
    });
  });
}
