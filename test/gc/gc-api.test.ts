/**
 * Garbage collection through the real server and CLI (POST /v1/admin/gc,
 * `svc gc`): admin only, dry runs change nothing, two runs condemn then
 * delete what no retained manifest references, an expired tombstone's
 * rehydration is refused as such, every run is a ledger event, and abandoned
 * multipart uploads expire. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import type { GcReport } from '../../src/svc/gc/gc-service.ts';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { gcServiceOf } from '../helpers/gc-service.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = any;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

for (const engine of engines()) {
  describe(`svc gc on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name, overrides: { 'gc.grace_minutes': 0, 'gc.tombstone_retention_days': 0 } });
    });
    after(async () => s?.close());

    const gc = async (body: unknown, key: string = ADMIN_KEY) => s.call('POST', '/v1/admin/gc', { key, body });
    const runGc = async (dryRun: boolean): Promise<GcReport> => {
      const r = await gc({ dry_run: dryRun });
      assert.equal(r.status, 200, await r.clone().text());
      return ((await r.json()) as { result: GcReport }).result;
    };
    const put = async (key: string, data: Uint8Array) => {
      const r = await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'gc-test', key, body_base64: Buffer.from(data).toString('base64') } });
      assert.equal(r.status, 201, await r.clone().text());
      return (await r.json()) as Json;
    };
    const rehydrate = (id: string) => s.call('POST', `/v1/manifests/${id}/rehydrate`, { body: {} });

    test('only a deployment-wide admin key may run it', async () => {
      for (const key of [KEYS.acmeWriter, KEYS.operator, KEYS.auditor]) {
        const r = await gc({ dry_run: true }, key);
        assert.equal(r.status, 403, key);
        await r.arrayBuffer();
      }
      const bad = await gc({ dry_run: 'yes' });
      assert.equal(bad.status, 400);
      await bad.arrayBuffer();
    });

    test('dry run, condemn, delete: unreferenced and expired chunks go, retained objects stay bit-exact, each run is a ledger event', async () => {
      const keep = corpusFile('random', 300_000, 'gc-keep');
      const gone = corpusFile('random', 300_000, 'gc-gone');
      const kept = await put('keep.bin', keep);
      const deleted = await put('gone.bin', gone);
      // The delete itself is policy's business (docs/policy.md); here the manifest is tombstoned directly.
      const admin = { principal: makePrincipal('test-admin', ['admin']), traceId: 'tr_gc' } as never;
      const doomed = await s.app.objects.manifests.get(admin, deleted.manifest_id);
      await s.app.objects.manifests.tombstone(admin, doomed, 'test_delete');
      // An ingest whose body did not match its digest leaves chunks nothing references.
      const orphan = corpusFile('random', 200_000, 'gc-orphan');
      const refused = await fetch(`${s.url}/v1/s3/objects?bucket=gc-test&key=orphan.bin`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': 'b'.repeat(64) }, body: orphan });
      assert.equal(refused.status, 400);
      await refused.arrayBuffer();

      const dry = await runGc(true);
      assert.equal(dry.dry_run, true);
      assert.equal(dry.chunk_layout, 'packs');
      assert.ok(dry.chunks.condemned > 0, JSON.stringify(dry));
      assert.equal(dry.manifests.retention_expired, 1);
      assert.deepEqual((await runGc(true)).chunks, dry.chunks, 'a dry run changes nothing');
      const stillThere = await rehydrate(deleted.manifest_id);
      assert.equal(stillThere.status, 200, 'a dry run does not expire the tombstone');
      assert.equal(sha256(new Uint8Array(await stillThere.arrayBuffer())), sha256(gone));

      const first = await runGc(false);
      assert.equal(first.chunks.condemned, dry.chunks.condemned);
      assert.equal(first.chunks.deleted, 0, 'the first run only condemns');
      const refusedRehydrate = await rehydrate(deleted.manifest_id);
      assert.equal(refusedRehydrate.status, 404);
      const body = (await refusedRehydrate.json()) as Json;
      assert.deepEqual([body.error.code, body.error.details.reason], ['not_found', 'retention_expired']);
      assert.equal(((await (await s.call('GET', `/v1/manifests/${deleted.manifest_id}`)).json()) as Json).state, 'tombstoned', 'no quarantine for an expired tombstone');

      const second = await runGc(false);
      assert.equal(second.chunks.deleted, first.chunks.condemned);
      assert.ok(second.chunks.bytes_deleted > 0);
      const store = s.app.objects.chunkBackend.store;
      assert.ok(store instanceof PackedChunkStore);
      const keptManifest = await s.app.objects.manifests.get(admin, kept.manifest_id);
      for (const c of keptManifest.chunks) assert.ok(await store.index.locate(keptManifest.chunk_scope, c.id, c.codec), 'kept chunks stay indexed');
      const back = await rehydrate(kept.manifest_id);
      assert.equal(back.status, 200);
      assert.equal(sha256(new Uint8Array(await back.arrayBuffer())), sha256(keep));

      const events = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['storage.gc_completed'], limit: 100 } })).json()) as Json).events;
      assert.deepEqual(
        events.map((e: Json) => [e.payload.dry_run, e.payload.chunks.condemned, e.payload.chunks.deleted]),
        [
          [true, dry.chunks.condemned, 0],
          [true, dry.chunks.condemned, 0],
          [false, first.chunks.condemned, 0],
          [false, 0, second.chunks.deleted],
        ],
      );
    });

    test('svc gc --dry-run prints the report', async () => {
      const r = await runSvc(['--json', 'gc', '--dry-run'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).result.dry_run, true);
      const denied = await runSvc(['gc'], { SVC_URL: s.url, SVC_API_KEY: KEYS.operator });
      assert.equal(denied.status, 1);
    });

    test('an open multipart upload idle past gc.multipart_expiry_hours is aborted and its parts discarded', async () => {
      const create = (await (await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'gc-test', key: 'slow.bin' } })).json()) as Json;
      const part = await s.call('POST', '/v1/s3/multipart/part', { key: KEYS.acmeWriter, body: { upload_id: create.upload_id, part_number: 1, body_base64: Buffer.from('part one').toString('base64') } });
      assert.equal(part.status, 200);
      await part.arrayBuffer();
      // The same service as the server's, two hours later.
      const later = gcServiceOf(s, { multipart_expiry_hours: 1 }, () => new Date(Date.now() + 2 * 3_600_000));
      const admin = { principal: makePrincipal('test-admin', ['admin']), traceId: 'tr_gc_mp' } as never;
      assert.equal((await later.run(admin, { dryRun: true })).uploads.expired, 1);
      const report = await later.run(admin);
      assert.deepEqual(report.uploads, { expired: 1, parts: 1, bytes: 8 });
      const after = await s.call('POST', '/v1/s3/multipart/part', { key: KEYS.acmeWriter, body: { upload_id: create.upload_id, part_number: 2, body_base64: Buffer.from('late').toString('base64') } });
      assert.equal(after.status, 409);
      await after.arrayBuffer();
      const events = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['object.multipart.expired'], limit: 10 } })).json()) as Json).events;
      assert.deepEqual(events.map((e: Json) => e.payload.upload_id), [create.upload_id]);
      // The server's own run (expiry 168 h) leaves a fresh upload alone.
      assert.equal((await runGc(false)).uploads.expired, 0);
    });
  });
}
