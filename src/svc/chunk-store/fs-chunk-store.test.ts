import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { SvcError } from '../errors.ts';
import { encodeChunk } from '../chunking/chunk-codec.ts';
import { chunkIdOf } from './chunk-id.ts';
import { chunkScopeFor } from './chunk-scope.ts';
import { FsChunkStore } from './fs-chunk-store.ts';

function tempStore(t: { after(fn: () => void): void }): FsChunkStore {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-chunks-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return new FsChunkStore({ root });
}

const acme = chunkScopeFor('tenant', 'acme');
const globex = chunkScopeFor('tenant', 'globex');

function isRehydrationFailure(reason: string, id: string) {
  return (err: unknown) => err instanceof SvcError && err.code === 'rehydration_failed' && err.details?.['reason'] === reason && err.details?.['chunk_id'] === id;
}

test('a stored chunk reads back verified, raw and compressed', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('log-like', 50_000, 'store');
  const id = chunkIdOf(raw);
  const encoded = await encodeChunk(raw);
  assert.equal(encoded.codec, 'zstd');
  assert.deepEqual(await store.put(acme, id, 'zstd', encoded.data), { created: true });
  assert.deepEqual(await store.put(acme, id, 'raw', raw), { created: true });
  assert.deepEqual(Buffer.from(await store.get(acme, id, 'zstd')), raw);
  assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
  assert.deepEqual(await store.stat(acme, id), { codec: 'zstd', storedLength: encoded.data.length });
  assert.deepEqual(await store.stat(acme, id, 'raw'), { codec: 'raw', storedLength: raw.length });
});

test('storing an existing chunk again writes nothing and says so', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 10_000, 'dup');
  const id = chunkIdOf(raw);
  const file = store.pathOf(acme, id, 'raw');
  await store.put(acme, id, 'raw', raw);
  const firstInode = statSync(file).ino;
  const results = await Promise.all([store.put(acme, id, 'raw', raw), store.put(acme, id, 'raw', raw)]);
  assert.deepEqual(results, [{ created: false }, { created: false }]);
  assert.equal(statSync(file).ino, firstInode, 'the existing file was not replaced');
  assert.deepEqual(readdirSync(path.dirname(file)), [path.basename(file)], 'no temporary file is left behind');
});

test('concurrent first writes of one chunk create it exactly once', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 100_000, 'race');
  const id = chunkIdOf(raw);
  const results = await Promise.all(Array.from({ length: 6 }, () => store.put(acme, id, 'raw', raw)));
  assert.equal(results.filter((r) => r.created).length, 1);
});

test('scopes are isolated: a chunk stored for one tenant does not exist for another', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 1000, 'scope');
  const id = chunkIdOf(raw);
  await store.put(acme, id, 'raw', raw);
  assert.equal(await store.stat(globex, id), undefined);
  await assert.rejects(store.get(globex, id, 'raw'), isRehydrationFailure('missing', id));
});

test('the global scope is shared and tenant scopes hide the tenant name', () => {
  assert.equal(chunkScopeFor('global', 'acme'), chunkScopeFor('global', 'globex'));
  assert.notEqual(acme, globex);
  assert.doesNotMatch(acme, /acme/);
});

test('a chunk changed on disk is reported as corrupt, naming it', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 4096, 'corrupt');
  const id = chunkIdOf(raw);
  await store.put(acme, id, 'raw', raw);
  const file = store.pathOf(acme, id, 'raw');
  const damaged = Buffer.from(raw);
  damaged[100] = damaged[100]! ^ 0xff;
  writeFileSync(file, damaged);
  await assert.rejects(store.get(acme, id, 'raw'), isRehydrationFailure('corrupt', id));
});

test('a compressed chunk that no longer decodes is reported as undecodable', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('json', 20_000, 'undecodable');
  const id = chunkIdOf(raw);
  await store.put(acme, id, 'zstd', (await encodeChunk(raw)).data);
  writeFileSync(store.pathOf(acme, id, 'zstd'), Buffer.from('garbage'));
  await assert.rejects(store.get(acme, id, 'zstd'), isRehydrationFailure('undecodable', id));
});

test('a deleted chunk is reported as missing', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 2048, 'missing');
  const id = chunkIdOf(raw);
  await store.put(acme, id, 'raw', raw);
  assert.equal(await store.delete(acme, id, 'raw'), true);
  assert.equal(await store.delete(acme, id, 'raw'), false);
  await assert.rejects(store.get(acme, id, 'raw'), isRehydrationFailure('missing', id));
});

test('a reader never sees a partially written chunk', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 8 << 20, 'atomic');
  const id = chunkIdOf(raw);
  const file = store.pathOf(acme, id, 'raw');
  const observedSizes = new Set<number>();
  let writing = true;
  const watcher = (async () => {
    while (writing) {
      try {
        observedSizes.add((await fs.stat(file)).size);
      } catch {
        observedSizes.add(-1); // not there yet
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  await store.put(acme, id, 'raw', raw);
  writing = false;
  await watcher;
  for (const size of observedSizes) assert.ok(size === -1 || size === raw.length, `saw a ${size}-byte file`);
  assert.equal(statSync(file).size, raw.length);
});

test('temporary files left by a crash are invisible to readers and swept at startup', async (t) => {
  const store = tempStore(t);
  const raw = corpusFile('random', 4096, 'crash');
  const id = chunkIdOf(raw);
  const file = store.pathOf(acme, id, 'raw');
  await fs.mkdir(path.dirname(file), { recursive: true });
  // What a crash between "write temp file" and "link into place" leaves.
  writeFileSync(path.join(path.dirname(file), '.tmp-deadbeefdeadbeef'), raw.subarray(0, 1000));
  assert.equal(await store.stat(acme, id), undefined);
  assert.equal(await store.sweepTemporaryFiles(), 1);
  assert.deepEqual(readdirSync(path.dirname(file)), []);
  await store.put(acme, id, 'raw', raw);
  await store.flush();
  assert.ok(existsSync(file));
});

test('ids and scopes that could escape the store directory are refused', (t) => {
  const store = tempStore(t);
  assert.throws(() => store.pathOf('../x' as typeof acme, chunkIdOf(Buffer.from('a')), 'raw'), TypeError);
  assert.throws(() => store.pathOf(acme, 'ch_../../etc/passwd', 'raw'), TypeError);
});

test('the readiness probe writes, reads and removes a file, leaving nothing behind', async (t) => {
  const store = tempStore(t);
  await store.probe();
  assert.deepEqual(readdirSync(store.root), []);
});

test('the readiness probe fails when the root cannot be written', async (t) => {
  const store = tempStore(t);
  const blocker = path.join(store.root, 'not-a-dir');
  writeFileSync(blocker, 'x');
  await assert.rejects(new FsChunkStore({ root: blocker }).probe());
});
