/**
 * What the S3 chunk store adds to the contract, against a real S3-compatible
 * server (s3rver on 127.0.0.1): its key layout (the filesystem layout under a
 * prefix, so a chunk directory can be synced into a bucket), the readiness
 * probe, and failures that are the store's, not the chunk's, reported as
 * `unavailable` rather than as a missing chunk.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { encodeChunk } from '../../src/svc/chunking/chunk-codec.ts';
import { chunkIdOf } from '../../src/svc/chunk-store/chunk-id.ts';
import { chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { S3ChunkStore, type S3ChunkStoreOptions } from '../../src/svc/chunk-store/s3-chunk-store.ts';
import { SvcError } from '../../src/svc/errors.ts';
import { S3RVER_CREDENTIALS, type S3TestServer, startS3TestServer } from './s3-test-server.ts';

const acme = chunkScopeFor('tenant', 'acme');

function unavailable(operation: string, status?: number) {
  return (err: unknown) =>
    err instanceof SvcError &&
    err.code === 'unavailable' &&
    err.retryable &&
    err.details?.['operation'] === operation &&
    (status === undefined ? err.details?.['http_status'] === undefined : err.details?.['http_status'] === status);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('S3ChunkStore on s3rver', () => {
  let s3: S3TestServer;
  const stores: S3ChunkStore[] = [];
  const open = (overrides: Partial<S3ChunkStoreOptions> = {}) => {
    const store = new S3ChunkStore({
      bucket: s3.bucket,
      prefix: `s3-${randomBytes(4).toString('hex')}`,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      ...overrides,
    });
    stores.push(store);
    return store;
  };

  before(async () => {
    s3 = await startS3TestServer();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await s3?.close();
  });

  test('chunks are stored at <prefix>/<scope>/<h0h1>/<h2h3>/<sha256>.<raw|zst>, the filesystem layout under the prefix', async () => {
    const store = open();
    const raw = corpusFile('log-like', 40_000, 's3-layout');
    const id = chunkIdOf(raw);
    const hex = id.slice('ch_'.length);
    await store.put(acme, id, 'raw', raw);
    await store.put(acme, id, 'zstd', (await encodeChunk(raw)).data);
    const base = `${store.prefix}/${acme}/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`;
    assert.deepEqual(await s3.listKeys(`${store.prefix}/`), [`${base}.raw`, `${base}.zst`]);
  });

  test('a filesystem chunk directory copied under the prefix is a valid S3 chunk store', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'svc-s3-migrate-'));
    try {
      const fsStore = new FsChunkStore({ root, fsyncFiles: false });
      const raws = [corpusFile('json', 30_000, 's3-migrate-a'), corpusFile('random', 30_000, 's3-migrate-b')];
      const forms: Array<[string, 'raw' | 'zstd']> = [];
      for (const raw of raws) {
        const encoded = await encodeChunk(raw);
        await fsStore.put(acme, chunkIdOf(raw), encoded.codec, encoded.data);
        forms.push([chunkIdOf(raw), encoded.codec]);
      }
      // What `aws s3 sync <chunk_dir> s3://<bucket>/<prefix>` does: each file to its relative path.
      const store = open();
      for (const [id, codec] of forms) {
        const file = fsStore.pathOf(acme, id, codec);
        await s3.putObject(`${store.prefix}/${path.relative(root, file).split(path.sep).join('/')}`, readFileSync(file));
      }
      for (const [i, [id, codec]] of forms.entries()) {
        assert.deepEqual(await store.stat(acme, id), await fsStore.stat(acme, id));
        assert.deepEqual(Buffer.from(await store.get(acme, id, codec)), raws[i]);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('surrounding slashes of the prefix are ignored, and an empty prefix is the bucket root', async () => {
    const raw = corpusFile('random', 1000, 's3-prefix');
    const id = chunkIdOf(raw);
    const hex = id.slice('ch_'.length);
    const slashed = open({ prefix: '/team-a/chunks/' });
    assert.equal(slashed.prefix, 'team-a/chunks');
    assert.equal(slashed.location, `s3://${s3.bucket}/team-a/chunks`);
    assert.equal(slashed.keyOf(acme, id, 'raw'), `team-a/chunks/${acme}/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}.raw`);
    const rooted = open({ prefix: '' });
    assert.equal(rooted.keyOf(acme, id, 'zstd'), `${acme}/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}.zst`);
    await rooted.put(acme, id, 'raw', raw);
    assert.ok((await s3.listKeys(`${acme}/`)).includes(rooted.keyOf(acme, id, 'raw')));
    assert.equal(await rooted.delete(acme, id, 'raw'), true);
  });

  test('the readiness probe writes, reads and removes an object, leaving nothing behind', async () => {
    const store = open();
    await store.probe();
    assert.deepEqual(await s3.listKeys(`${store.prefix}/`), []);
  });

  test('close lets the requests under way finish, then refuses new ones as unavailable', async () => {
    const store = open();
    const raw = corpusFile('random', 200_000, 's3-close');
    const id = chunkIdOf(raw);
    await store.put(acme, id, 'raw', raw);
    const reading = store.get(acme, id, 'raw');
    await store.close();
    assert.deepEqual(Buffer.from(await reading), raw, 'the read started before close completed');
    await assert.rejects(store.stat(acme, id), (err: unknown) => err instanceof SvcError && err.code === 'unavailable' && /closed/.test(err.message));
  });

  test('a bucket that does not exist makes the store unavailable, never a missing chunk', async () => {
    const store = open({ bucket: 'no-such-bucket-here' });
    const raw = corpusFile('random', 1000, 's3-nobucket');
    const id = chunkIdOf(raw);
    await assert.rejects(store.get(acme, id, 'raw'), unavailable('GetObject', 404));
    await assert.rejects(store.put(acme, id, 'raw', raw), unavailable('PutObject', 404));
    await assert.rejects(store.probe(), unavailable('probe', 404));
  });

  test('credentials the server does not know make the store unavailable, never a missing chunk', async () => {
    // s3rver checks the access key id (it does not verify SigV4 signatures).
    const store = open({ credentials: { accessKeyId: 'NOT-A-KNOWN-KEY', secretAccessKey: 'whatever' } });
    const id = chunkIdOf(Buffer.from('x'));
    await assert.rejects(store.get(acme, id, 'raw'), unavailable('GetObject', 403));
    await assert.rejects(store.stat(acme, id), unavailable('HeadObject', 403));
  });

  test('an endpoint nobody listens on makes the store unavailable and retryable, naming the transport error', async () => {
    const store = open({ endpoint: `http://127.0.0.1:${await closedPort()}` });
    const id = chunkIdOf(Buffer.from('y'));
    await assert.rejects(store.get(acme, id, 'raw'), (err: unknown) => unavailable('GetObject')(err) && (err as SvcError).details?.['s3_error'] === 'ECONNREFUSED');
    await assert.rejects(store.probe(), unavailable('probe'));
  });
});
