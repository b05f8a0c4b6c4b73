/**
 * The whole service with `storage.chunk_backend: s3`, against a real
 * S3-compatible server (s3rver on 127.0.0.1): objects put through the gateway
 * land as chunk objects in the bucket, come back bit for bit, ranges
 * rehydrate from them, readiness probes the bucket, and a chunk damaged in
 * the bucket fails rehydration naming it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import type { ChunkScope } from '../../src/svc/chunk-store/chunk-scope.ts';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { S3PackFiles } from '../../src/svc/chunk-store/s3-pack-files.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type S3TestServer, startS3TestServer } from './s3-test-server.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface ManifestChunk {
  id: string;
  codec: 'raw' | 'zstd';
  offset: number;
  length: number;
  stored_length: number;
}

for (const engine of engines()) {
  describe(`svc with S3 chunk storage on ${engine.name}`, { skip: engine.skip }, () => {
    let s3: S3TestServer;
    let s: TestServer;
    const prefix = `svc-${engine.name}`;
    const writer = { key: KEYS.acmeWriter };

    before(async () => {
      s3 = await startS3TestServer();
      s = await startTestServer({ engine: engine.name, env: s3.svcEnv(prefix), overrides: { 'server.body_limit_bytes': 4 * 1024 * 1024 } });
    });
    after(async () => {
      await s?.close();
      await s3?.close();
    });

    const putObject = async (key: string, data: Uint8Array) => {
      const res = await s.call('POST', '/v1/s3/objects', { ...writer, body: { bucket: 'media', key, body_base64: b64(data) } });
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()) as { manifest_id: string; output: { sha256: string }; details: { bytes_stored: number } };
    };
    const packedStore = () => {
      const store = s.app.objects.chunkBackend.store;
      assert.ok(store instanceof PackedChunkStore && store.packs instanceof S3PackFiles, 'the S3 backend writes packs');
      return { store, packs: store.packs };
    };
    const manifestOf = async (id: string) => (await (await s.call('GET', `/v1/manifests/${id}`, writer)).json()) as { chunk_scope: string; chunks: ManifestChunk[] };

    test('the service runs on the S3 backend and readiness probes the bucket', async () => {
      assert.equal(s.app.objects.chunkBackend.kind, 's3');
      assert.throws(() => s.app.objects.fsChunks, /not on the filesystem/);
      const ready = await s.call('GET', '/readyz', { key: null });
      assert.equal(ready.status, 200);
      const check = ((await ready.json()) as { checks: Array<{ name: string; ok: boolean; detail?: string }> }).checks.find((c) => c.name === 'chunk_store');
      assert.deepEqual(check, { name: 'chunk_store', ok: true, detail: `s3://${s3.bucket}/${prefix}` });
    });

    test('an object put through the gateway is stored as one pack object (one PUT, not one per chunk) and read back bit for bit', async () => {
      const data = Buffer.concat([corpusFile('log-like', 400_000, 's3svc-log'), corpusFile('random', 300_000, 's3svc-random')]);
      const keysBefore = new Set(await s3.listKeys(`${prefix}/`));
      const put = await putObject('clip.bin', data);
      assert.equal(put.output.sha256, sha256(data));
      assert.ok(put.details.bytes_stored > 0);

      const manifest = await manifestOf(put.manifest_id);
      assert.ok(manifest.chunks.length >= 4, 'the object spans several chunks');
      assert.ok(manifest.chunks.some((c) => c.codec === 'zstd') && manifest.chunks.some((c) => c.codec === 'raw'), 'both codecs are exercised');
      // One new object, a pack, holds every chunk the manifest names at its stored length.
      const added = (await s3.listKeys(`${prefix}/`)).filter((k) => !keysBefore.has(k));
      assert.equal(added.length, 1, added.join(', '));
      assert.match(added[0]!, new RegExp(`^${prefix}/${manifest.chunk_scope}/packs/[0-9a-f]{2}/pk_[0-9a-f]{32}\\.pack$`));
      const { store, packs } = packedStore();
      for (const chunk of manifest.chunks) {
        const loc = await store.locate(manifest.chunk_scope as ChunkScope, chunk.id, chunk.codec);
        assert.ok(loc, `chunk ${chunk.id} is indexed`);
        assert.equal(packs.keyOf(manifest.chunk_scope, loc.pack_id), added[0]);
        assert.deepEqual(await store.stat(manifest.chunk_scope as ChunkScope, chunk.id, chunk.codec), { codec: chunk.codec, storedLength: chunk.stored_length });
      }

      const got = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'media', key: 'clip.bin' } });
      assert.equal(got.status, 200);
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
    });

    test('ranges rehydrate from the bucket, across chunk boundaries, through the gateway and the manifest', async () => {
      const data = corpusFile('json', 500_000, 's3svc-range');
      const put = await putObject('range.json', data);
      const manifest = await manifestOf(put.manifest_id);
      const boundary = manifest.chunks[1]!.offset;
      const viaGateway = await s.call('POST', '/v1/s3/objects/range', { ...writer, body: { bucket: 'media', key: 'range.json', range: { start: boundary - 100, end: boundary + 99 } } });
      assert.equal(viaGateway.status, 206);
      assert.equal(viaGateway.headers.get('content-range'), `bytes ${boundary - 100}-${boundary + 99}/${data.length}`);
      assert.deepEqual(Buffer.from(await viaGateway.arrayBuffer()), data.subarray(boundary - 100, boundary + 100));
      const viaManifest = await s.call('POST', `/v1/manifests/${put.manifest_id}/rehydrate`, { ...writer, body: { range: { suffix: 1000 } } });
      assert.equal(viaManifest.status, 206);
      assert.deepEqual(Buffer.from(await viaManifest.arrayBuffer()), data.subarray(data.length - 1000));
    });

    test('a second put of the same bytes stores nothing new in the bucket', async () => {
      const data = corpusFile('log-like', 300_000, 's3svc-dedupe');
      await putObject('first.log', data);
      const before = await s3.listKeys(`${prefix}/`);
      const second = await putObject('second.log', data);
      assert.equal(second.details.bytes_stored, 0);
      assert.deepEqual(await s3.listKeys(`${prefix}/`), before);
    });

    test('a chunk damaged in the bucket fails rehydration with rehydration_failed naming the chunk', async () => {
      const data = corpusFile('random', 300_000, 's3svc-corrupt');
      const put = await putObject('damaged.bin', data);
      const manifest = await manifestOf(put.manifest_id);
      const victim = manifest.chunks[1]!;
      const { store, packs } = packedStore();
      const loc = (await store.locate(manifest.chunk_scope as ChunkScope, victim.id, victim.codec))!;
      const key = packs.keyOf(manifest.chunk_scope, loc.pack_id);
      const pack = Buffer.from(await (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToByteArray());
      pack.fill(7, loc.pack_offset, loc.pack_offset + loc.stored_length);
      await s3.putObject(key, pack);
      const res = await s.call('POST', `/v1/manifests/${put.manifest_id}/rehydrate`, { ...writer, body: {} });
      assert.equal(res.status, 500);
      const body = (await res.json()) as { error: { code: string; details: { chunk_id: string; reason: string } } };
      assert.equal(body.error.code, 'rehydration_failed');
      assert.deepEqual([body.error.details.chunk_id, body.error.details.reason], [victim.id, 'corrupt']);
    });

    test('a chunk missing from the bucket fails rehydration as missing', async () => {
      const data = corpusFile('random', 200_000, 's3svc-missing');
      const put = await putObject('gone.bin', data);
      const manifest = await manifestOf(put.manifest_id);
      const victim = manifest.chunks[0]!;
      const { store, packs } = packedStore();
      const loc = (await store.locate(manifest.chunk_scope as ChunkScope, victim.id, victim.codec))!;
      await s3.deleteObject(packs.keyOf(manifest.chunk_scope, loc.pack_id));
      const res = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'media', key: 'gone.bin' } });
      assert.equal(res.status, 500);
      const body = (await res.json()) as { error: { code: string; details: { chunk_id: string; reason: string } } };
      assert.deepEqual([body.error.code, body.error.details.chunk_id, body.error.details.reason], ['rehydration_failed', victim.id, 'missing']);
    });

    test('raw bodies (decision 112): a raw put, and a raw part staged in the bucket only once it matched its digest', async () => {
      const raw = (method: string, route: string, bytes: Uint8Array, digest: string) =>
        fetch(`${s.url}${route}`, { method, headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': digest }, body: bytes });
      const data = corpusFile('log-like', 600_000, 's3svc-raw');
      const put = await raw('PUT', '/v1/s3/objects?bucket=media&key=raw.log', data, sha256(data));
      assert.equal(put.status, 201, await put.clone().text());
      assert.equal(((await put.json()) as { output: { sha256: string } }).output.sha256, sha256(data));

      const created = (await (await s.call('POST', '/v1/s3/multipart/create', { ...writer, body: { bucket: 'media', key: 'raw-mp.log' } })).json()) as { upload_id: string };
      const partRoute = `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=1`;
      const first = await raw('PUT', partRoute, data, sha256(data));
      assert.equal(first.status, 200, await first.clone().text());
      const wrong = await raw('PUT', partRoute, corpusFile('random', 600_000, 's3svc-raw-wrong'), sha256(data));
      assert.equal(wrong.status, 400);
      assert.equal(((await wrong.json()) as { error: { details: { reason: string } } }).error.details.reason, 'digest_mismatch');
      const done = await s.call('POST', '/v1/s3/multipart/complete', { ...writer, body: { upload_id: created.upload_id, parts: [{ part_number: 1, sha256: sha256(data) }] } });
      assert.equal(done.status, 200, 'the refused re-upload did not replace the staged part');
      const got = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'media', key: 'raw-mp.log' } });
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(data));
    });
  });
}
