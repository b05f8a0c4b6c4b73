/**
 * Recompression by garbage collection (decision 207) through the real server
 * and CLI: packs whose chunks were compressed alone are rewritten with them in
 * dense zstd frames; objects read back bit-exact, whole and by range; packs of
 * raw chunks are left alone; a pack is densified once; a dry run changes
 * nothing; a pack not worth rewriting is stamped and not tried again;
 * packs younger than `gc.recompress_after_minutes` wait; `gc.recompress_level:
 * 0` turns it off. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
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
  describe(`svc gc recompression on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name, overrides: { 'gc.grace_minutes': 0, 'gc.recompress_after_minutes': 0 } });
    });
    after(async () => s?.close());

    const store = () => {
      const st = s.app.objects.chunkBackend.store;
      assert.ok(st instanceof PackedChunkStore);
      return st;
    };
    const put = async (key: string, data: Uint8Array) => {
      const r = await fetch(`${s.url}/v1/s3/objects?bucket=recompress&key=${key}`, {
        method: 'PUT',
        headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(data) },
        body: data,
      });
      assert.equal(r.status, 201, await r.clone().text());
      const manifestId = ((await r.json()) as Json).manifest_id as string;
      const manifest = (await (await s.call('GET', `/v1/manifests/${manifestId}`)).json()) as Json;
      return { manifestId, chunks: manifest.chunks as Array<{ id: string; codec: 'raw' | 'zstd' }>, scope: manifest.chunk_scope as string };
    };
    const runGc = async (dryRun: boolean): Promise<GcReport> => {
      const r = await s.call('POST', '/v1/admin/gc', { body: { dry_run: dryRun } });
      assert.equal(r.status, 200, await r.clone().text());
      return ((await r.json()) as { result: GcReport }).result;
    };
    const packBytes = async () => (await s.app.store.chunkPacks.packUsage()).reduce((n, p) => n + p.size_bytes, 0);
    const packOf = async (scope: string, id: string, codec: 'raw' | 'zstd') => (await store().index.locate(scope, id, codec))!;
    const readBack = async (manifestId: string) => new Uint8Array(await (await s.call('POST', `/v1/manifests/${manifestId}/rehydrate`, { body: {} })).arrayBuffer());

    test('text packs become dense frames, read back bit-exact whole and by range; raw packs stay; the second run does nothing', async () => {
      const text = corpusFile('log-like', 3 * 1024 * 1024, 'recompress-log');
      const noise = corpusFile('random', 1024 * 1024, 'recompress-noise');
      const logObject = await put('log.txt', text);
      const noiseObject = await put('noise.bin', noise);
      const zstdChunks = logObject.chunks.filter((c) => c.codec === 'zstd');
      assert.ok(zstdChunks.length > 10, 'log text is stored as zstd chunks');
      const rawPack = (await packOf(noiseObject.scope, noiseObject.chunks[0]!.id, 'raw')).pack_id;
      for (const c of zstdChunks) assert.equal((await packOf(logObject.scope, c.id, 'zstd')).frame, undefined, 'compressed alone at ingest');

      const bytesBefore = await packBytes();
      const dry = await runGc(true);
      assert.equal(dry.packs.recompressed, 1, JSON.stringify(dry.packs));
      assert.equal(dry.packs.densified_chunks, 0, 'a dry run encodes nothing');
      assert.equal(await packBytes(), bytesBefore, 'a dry run changes nothing');

      const cli = await runSvc(['--json', 'gc'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
      assert.equal(cli.status, 0, cli.stderr);
      const report = JSON.parse(cli.stdout).result as GcReport;
      assert.equal(report.packs.recompressed, 1);
      assert.equal(report.packs.densified_chunks, zstdChunks.length);
      assert.ok(report.bytes_freed > 0);
      assert.equal(await packBytes(), bytesBefore - report.bytes_freed, 'the freed bytes are the packs that went');
      // log-like text: 64 KiB zstd-3 chunks against 4 MiB zstd-17 frames (~25 % smaller on this corpus).
      assert.ok(report.bytes_freed > bytesBefore * 0.05, `${report.bytes_freed} of ${bytesBefore}`);

      for (const c of zstdChunks) assert.ok((await packOf(logObject.scope, c.id, 'zstd')).frame, 'now in a frame');
      assert.equal((await packOf(noiseObject.scope, noiseObject.chunks[0]!.id, 'raw')).pack_id, rawPack, 'a pack of raw chunks is not rewritten');
      assert.equal(sha256(await readBack(logObject.manifestId)), sha256(text));
      assert.equal(sha256(await readBack(noiseObject.manifestId)), sha256(noise));
      for (const [start, end] of [[0, 99], [1_000_003, 1_400_000], [text.length - 70_000, text.length - 1]] as const) {
        const r = await s.call('POST', `/v1/manifests/${logObject.manifestId}/rehydrate`, { body: { range: { start, end } } });
        assert.equal(r.status, 206);
        assert.deepEqual(new Uint8Array(await r.arrayBuffer()), new Uint8Array(text.subarray(start, end + 1)));
      }

      const again = await runGc(false);
      assert.equal(again.packs.recompressed, 0, 'a recompressed pack is not densified again');
      assert.equal((await runGc(true)).packs.recompressed, 0);
      const events = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['storage.gc_completed'], limit: 100 } })).json()) as Json).events;
      assert.ok(events.some((e: Json) => e.payload.dry_run === false && e.payload.packs.recompressed === 1 && e.payload.packs.densified_chunks === zstdChunks.length));
    });

    test('a pack that frames would not make smaller is stamped as tried and left as it was', async () => {
      // Base64 of random bytes: zstd saves ~25 % on each chunk alone by entropy coding, and context across chunks adds nothing.
      const b64 = Buffer.from(randomBytes(1_500_000).toString('base64'));
      const object = await put('b64.txt', b64);
      const zstd = object.chunks.filter((c) => c.codec === 'zstd');
      assert.ok(zstd.length > 3, 'base64 is stored as zstd chunks');
      const pack = (await packOf(object.scope, zstd[0]!.id, 'zstd')).pack_id;
      assert.equal((await runGc(true)).packs.recompressed, 1, 'a candidate');
      const report = await runGc(false);
      assert.equal(report.packs.recompressed, 0);
      assert.equal((await packOf(object.scope, zstd[0]!.id, 'zstd')).pack_id, pack, 'not rewritten');
      assert.ok((await s.app.store.chunkPacks.getPack(pack))?.recompressed_at, 'stamped');
      assert.equal((await runGc(true)).packs.recompressed, 0, 'not a candidate any more');
      assert.equal(sha256(await readBack(object.manifestId)), sha256(b64));
    });

    test('a pack younger than gc.recompress_after_minutes is not recompressed yet', async () => {
      const text = corpusFile('log-like', 1024 * 1024, 'recompress-young');
      const object = await put('young.log', text);
      const zstd = object.chunks.find((c) => c.codec === 'zstd')!;
      const pack = (await packOf(object.scope, zstd.id, 'zstd')).pack_id;
      const admin = { principal: makePrincipal('test-admin', ['admin']), traceId: 'tr_gc_young' } as never;
      assert.equal((await gcServiceOf(s, { recompress_after_minutes: 60 }).run(admin)).packs.recompressed, 0);
      assert.equal((await packOf(object.scope, zstd.id, 'zstd')).pack_id, pack, 'left as ingest wrote it');
      // An hour later it is old enough.
      const later = gcServiceOf(s, { recompress_after_minutes: 60 }, () => new Date(Date.now() + 61 * 60_000));
      assert.equal((await later.run(admin)).packs.recompressed, 1);
      assert.notEqual((await packOf(object.scope, zstd.id, 'zstd')).pack_id, pack);
      assert.equal(sha256(await readBack(object.manifestId)), sha256(text));
    });

    test('gc.recompress_level 0 leaves packs as they are', async () => {
      const text = corpusFile('json', 1024 * 1024, 'recompress-off');
      const object = await put('off.json', text);
      const zstd = object.chunks.find((c) => c.codec === 'zstd')!;
      const pack = (await packOf(object.scope, zstd.id, 'zstd')).pack_id;
      const off = gcServiceOf(s, { recompress_level: 0 });
      const admin = { principal: makePrincipal('test-admin', ['admin']), traceId: 'tr_gc_off' } as never;
      const report = await off.run(admin);
      assert.equal(report.packs.recompressed, 0);
      assert.equal((await packOf(object.scope, zstd.id, 'zstd')).pack_id, pack);
      assert.equal((await runGc(false)).packs.recompressed, 1, 'the server (level 17) does recompress it');
    });
  });
}
