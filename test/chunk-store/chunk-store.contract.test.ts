/**
 * The ChunkStore contract (src/svc/chunk-store/chunk-store.ts), run against
 * every backend: the filesystem store, and the S3 store against a real
 * S3-compatible server (s3rver, in process, on 127.0.0.1). Rehydration and
 * ingest rely on exactly these properties, whichever backend holds the bytes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import type { ChunkCodec } from '../../src/svc/chunking/chunk-codec.ts';
import { encodeChunk } from '../../src/svc/chunking/chunk-codec.ts';
import { chunkIdOf } from '../../src/svc/chunk-store/chunk-id.ts';
import { type ChunkScope, chunkScopeFor, privateChunkScope } from '../../src/svc/chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../../src/svc/chunk-store/chunk-store.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { S3ChunkStore } from '../../src/svc/chunk-store/s3-chunk-store.ts';
import { S3PackFiles } from '../../src/svc/chunk-store/s3-pack-files.ts';
import { SvcError } from '../../src/svc/errors.ts';
import { buildPack } from '../../src/svc/chunk-store/pack-format.ts';
import { FsPackFiles, newPackId } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import type { Db } from '../../src/svc/store/db.ts';
import { migrate } from '../../src/svc/store/migrate.ts';
import { openDb } from '../../src/svc/store/open-db.ts';
import { ChunkPackRepository } from '../../src/svc/store/repositories/chunk-packs.ts';
import { type EngineName, type EngineTarget, engineTarget, engines } from '../helpers/engines.ts';
import { S3RVER_CREDENTIALS, S3RVER_IGNORES_CONDITIONAL_PUT, type S3TestServer, startS3TestServer } from './s3-test-server.ts';

/** One store under test, plus what the contract tests need to reach behind its back. */
interface Subject {
  store: ChunkStore;
  /** Replaces the stored bytes of one form, as a failing disk or a careless operator would. */
  overwrite(scope: ChunkScope, id: string, codec: ChunkCodec, bytes: Uint8Array): Promise<void>;
  /** A second, independent store over the same location (another process, a restart). */
  reopen(): ChunkStore;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  /** Skip reason for the whole suite (an engine that is not available here), or false. */
  skip?: string | false;
  /** Skip reason for the "racing first writes" test, or false. */
  raceSkip: string | false;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  open(): Promise<Subject>;
}

const filesystem: Backend = {
  name: 'FsChunkStore',
  raceSkip: false,
  async setUp() {},
  async tearDown() {},
  async open() {
    const root = mkdtempSync(path.join(os.tmpdir(), 'svc-contract-'));
    const make = () => new FsChunkStore({ root, fsyncFiles: false });
    const store = make();
    return {
      store,
      overwrite: async (scope, id, codec, bytes) => writeFileSync(store.pathOf(scope, id, codec), bytes),
      reopen: make,
      close: async () => rmSync(root, { recursive: true, force: true }),
    };
  },
};

/**
 * The pack store (the filesystem backend's default layout) with its index in
 * SQLite or PostgreSQL. Each subject starts from an empty index.
 */
function packed(engine: EngineName, skip: string | false): Backend {
  let target: EngineTarget | undefined;
  let db: Db | undefined;
  return {
    name: `PackedChunkStore on ${engine}`,
    skip,
    raceSkip: false,
    async setUp() {
      if (skip) return;
      target = await engineTarget(engine);
      db = openDb(target);
      await migrate(db);
    },
    async tearDown() {
      await db?.close();
      await target?.cleanup();
    },
    async open() {
      await db!.exec('DELETE FROM chunk_index; DELETE FROM chunk_packs');
      const root = mkdtempSync(path.join(os.tmpdir(), 'svc-contract-packs-'));
      const index = new ChunkPackRepository(db!);
      // A small target so that several tests cross pack boundaries.
      const make = () => new PackedChunkStore({ packs: new FsPackFiles({ root, fsync: false }), index, legacy: new FsChunkStore({ root, fsyncFiles: false }), packTargetBytes: 64 * 1024 });
      const store = make();
      return {
        store,
        // Damage as a disk would: the index row now points at the given bytes.
        overwrite: async (scope, id, codec, bytes) => {
          const loc = await store.locate(scope, id, codec);
          assert.ok(loc, 'the chunk is indexed');
          const built = buildPack([{ id, codec, data: bytes }]);
          const packId = newPackId();
          await store.packs.write(scope, packId, built.bytes);
          assert.ok(await index.relocate(scope, id, codec, loc.pack_id, { pack_id: packId, pack_offset: built.entries[0]!.offset, stored_length: bytes.length }));
        },
        reopen: make,
        close: async () => rmSync(root, { recursive: true, force: true }),
      };
    },
  };
}

let s3: S3TestServer | undefined;
const s3rver: Backend = {
  name: 'S3ChunkStore on s3rver',
  raceSkip: S3RVER_IGNORES_CONDITIONAL_PUT,
  async setUp() {
    s3 ??= await startS3TestServer();
  },
  async tearDown() {},
  async open() {
    const server = s3!;
    // A prefix per test keeps tests apart inside the one bucket.
    const prefix = `contract-${randomBytes(4).toString('hex')}`;
    const opened: S3ChunkStore[] = [];
    const make = () => {
      const store = new S3ChunkStore({ bucket: server.bucket, prefix, region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
      opened.push(store);
      return store;
    };
    const store = make();
    return {
      store,
      overwrite: (scope, id, codec, bytes) => server.putObject(store.keyOf(scope, id, codec), bytes),
      reopen: make,
      close: async () => {
        for (const s of opened) await s.close();
      },
    };
  },
};

const acme = chunkScopeFor('tenant', 'acme');
const globex = chunkScopeFor('tenant', 'globex');

function rehydrationFailure(reason: string, id: string) {
  return (err: unknown) => err instanceof SvcError && err.code === 'rehydration_failed' && err.details?.['reason'] === reason && err.details?.['chunk_id'] === id;
}

/** The pack store on the S3 backend (one PUT per pack), its index in SQLite. */
const packedS3: Backend = {
  name: 'PackedChunkStore on s3rver',
  raceSkip: false,
  async setUp() {
    s3 ??= await startS3TestServer();
  },
  async tearDown() {},
  async open() {
    const server = s3!;
    const prefix = `contract-packs-${randomBytes(4).toString('hex')}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-contract-s3packs-'));
    const db = openDb({ databaseUrl: `sqlite:${path.join(dir, 'index.sqlite')}`, stateDir: dir });
    await migrate(db);
    const index = new ChunkPackRepository(db);
    const connection = { bucket: server.bucket, prefix, region: server.region, endpoint: server.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS };
    const opened: Array<{ close(): Promise<void> }> = [];
    const make = () => {
      const packs = new S3PackFiles(connection);
      const legacy = new S3ChunkStore(connection);
      opened.push(packs, legacy);
      return new PackedChunkStore({ packs, index, legacy, packTargetBytes: 64 * 1024 });
    };
    const store = make();
    return {
      store,
      overwrite: async (scope, id, codec, bytes) => {
        const loc = await store.locate(scope, id, codec);
        assert.ok(loc, 'the chunk is indexed');
        const built = buildPack([{ id, codec, data: bytes }]);
        const packId = newPackId();
        await store.packs.write(scope, packId, built.bytes);
        assert.ok(await index.relocate(scope, id, codec, loc.pack_id, { pack_id: packId, pack_offset: built.entries[0]!.offset, stored_length: bytes.length }));
      },
      reopen: make,
      close: async () => {
        for (const o of opened) await o.close();
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const packedBackends = [...engines().map((e) => packed(e.name, e.skip)), packedS3];

for (const backend of [filesystem, s3rver, ...packedBackends]) {
  describe(`ChunkStore contract: ${backend.name}`, { skip: backend.skip ?? false }, () => {
    before(() => backend.setUp());
    after(() => backend.tearDown());

    /** Runs `fn` on a fresh subject and closes it whatever happens. */
    const withSubject = async (fn: (s: Subject) => Promise<void>) => {
      const subject = await backend.open();
      try {
        await fn(subject);
      } finally {
        await subject.close();
      }
    };

    test('a chunk stored raw and compressed reads back verified in both forms, and stat prefers the compressed one', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('log-like', 50_000, 'contract-roundtrip');
        const id = chunkIdOf(raw);
        const encoded = await encodeChunk(raw);
        assert.equal(encoded.codec, 'zstd');
        assert.ok(encoded.data.length < raw.length);
        assert.deepEqual(await store.put(acme, id, 'raw', raw), { created: true });
        assert.deepEqual(await store.stat(acme, id), { codec: 'raw', storedLength: raw.length });
        assert.deepEqual(await store.put(acme, id, 'zstd', encoded.data), { created: true });
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'zstd', raw.length)), raw);
        assert.deepEqual(await store.stat(acme, id), { codec: 'zstd', storedLength: encoded.data.length });
        assert.deepEqual(await store.stat(acme, id, 'raw'), { codec: 'raw', storedLength: raw.length });
        assert.deepEqual(await store.stat(acme, id, 'zstd'), { codec: 'zstd', storedLength: encoded.data.length });
      }));

    test('readStored returns the stored form byte for byte, without decoding it', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('json', 30_000, 'contract-stored');
        const id = chunkIdOf(raw);
        const encoded = await encodeChunk(raw);
        await store.put(acme, id, encoded.codec, encoded.data);
        assert.deepEqual(Buffer.from(await store.readStored(acme, id, encoded.codec)), Buffer.from(encoded.data));
      }));

    test('a chunk handed over as a view into a larger window is stored exactly', () =>
      withSubject(async ({ store }) => {
        // Ingest passes views into the chunker's windows (at an offset, shorter than their buffer).
        const raw = corpusFile('random', 20_000, 'contract-shared');
        const window = new Uint8Array(raw.length + 300);
        window.set(raw, 100);
        const view = window.subarray(100, 100 + raw.length);
        const id = chunkIdOf(raw);
        await store.put(acme, id, 'raw', view);
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
      }));

    test('storing an existing key again reports created: false and leaves the stored bytes as they were', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('random', 10_000, 'contract-idempotent');
        const id = chunkIdOf(raw);
        assert.deepEqual(await store.put(acme, id, 'raw', raw), { created: true });
        assert.deepEqual(await store.put(acme, id, 'raw', raw), { created: false });
        // Even bytes that are not the chunk must not replace it.
        assert.deepEqual(await store.put(acme, id, 'raw', Buffer.from('not the chunk')), { created: false });
        assert.deepEqual(Buffer.from(await store.readStored(acme, id, 'raw')), raw);
        assert.deepEqual(await store.stat(acme, id, 'raw'), { codec: 'raw', storedLength: raw.length });
      }));

    test('concurrent first writes of one chunk create it exactly once', { skip: backend.raceSkip }, () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('random', 100_000, 'contract-race');
        const id = chunkIdOf(raw);
        const results = await Promise.all(Array.from({ length: 6 }, () => store.put(acme, id, 'raw', raw)));
        assert.equal(results.filter((r) => r.created).length, 1);
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
      }));

    test('a chunk whose stored bytes were replaced is reported as corrupt, naming it', () =>
      withSubject(async ({ store, overwrite }) => {
        const raw = corpusFile('random', 4096, 'contract-corrupt');
        const id = chunkIdOf(raw);
        await store.put(acme, id, 'raw', raw);
        const damaged = Buffer.from(raw);
        damaged[100] = damaged[100]! ^ 0xff;
        await overwrite(acme, id, 'raw', damaged);
        await assert.rejects(store.get(acme, id, 'raw'), rehydrationFailure('corrupt', id));
        // Exports carry stored bytes unverified (their importer verifies): the damage is visible, not hidden.
        assert.deepEqual(Buffer.from(await store.readStored(acme, id, 'raw')), damaged);
      }));

    test('a compressed chunk that decodes to other bytes is corrupt; one that does not decode is undecodable', () =>
      withSubject(async ({ store, overwrite }) => {
        const raw = corpusFile('json', 20_000, 'contract-undecodable');
        const other = corpusFile('json', 20_000, 'contract-undecodable-other');
        const id = chunkIdOf(raw);
        await store.put(acme, id, 'zstd', (await encodeChunk(raw)).data);
        await overwrite(acme, id, 'zstd', (await encodeChunk(other)).data);
        await assert.rejects(store.get(acme, id, 'zstd'), rehydrationFailure('corrupt', id));
        await overwrite(acme, id, 'zstd', Buffer.from('garbage, not zstd'));
        await assert.rejects(store.get(acme, id, 'zstd'), rehydrationFailure('undecodable', id));
      }));

    test('a chunk never stored, or deleted, is missing to stat, get, readStored and delete', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('random', 2048, 'contract-missing');
        const id = chunkIdOf(raw);
        assert.equal(await store.stat(acme, id), undefined);
        await assert.rejects(store.get(acme, id, 'raw'), rehydrationFailure('missing', id));
        await assert.rejects(store.readStored(acme, id, 'zstd'), rehydrationFailure('missing', id));
        assert.equal(await store.delete(acme, id, 'raw'), false);

        await store.put(acme, id, 'raw', raw);
        assert.equal(await store.delete(acme, id, 'raw'), true);
        assert.equal(await store.delete(acme, id, 'raw'), false);
        assert.equal(await store.stat(acme, id), undefined);
        await assert.rejects(store.get(acme, id, 'raw'), rehydrationFailure('missing', id));
        await assert.rejects(store.readStored(acme, id, 'raw'), rehydrationFailure('missing', id));
      }));

    test('deleting one form leaves the other', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('log-like', 30_000, 'contract-delete-one');
        const id = chunkIdOf(raw);
        await store.put(acme, id, 'raw', raw);
        await store.put(acme, id, 'zstd', (await encodeChunk(raw)).data);
        assert.equal(await store.delete(acme, id, 'zstd'), true);
        assert.deepEqual(await store.stat(acme, id), { codec: 'raw', storedLength: raw.length });
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
      }));

    test('scopes are isolated: a chunk stored in one scope does not exist in another', () =>
      withSubject(async ({ store }) => {
        const raw = corpusFile('random', 1000, 'contract-scope');
        const id = chunkIdOf(raw);
        const privateScope = privateChunkScope('wu_contract');
        await store.put(acme, id, 'raw', raw);
        for (const scope of [globex, privateScope, chunkScopeFor('global', 'acme')]) {
          assert.equal(await store.stat(scope, id), undefined, scope);
          await assert.rejects(store.get(scope, id, 'raw'), rehydrationFailure('missing', id));
          assert.equal(await store.delete(scope, id, 'raw'), false);
        }
        // The same chunk in another scope is a separate copy, created there.
        assert.deepEqual(await store.put(globex, id, 'raw', raw), { created: true });
        assert.equal(await store.delete(globex, id, 'raw'), true);
        assert.deepEqual(Buffer.from(await store.get(acme, id, 'raw')), raw);
      }));

    test('after flush, a second store over the same location reads what the first wrote', () =>
      withSubject(async ({ store, reopen }) => {
        const raws = ['random', 'log-like', 'json'].map((kind) => corpusFile(kind as 'random', 40_000, `contract-reopen-${kind}`));
        for (const raw of raws) {
          const encoded = await encodeChunk(raw);
          await store.put(acme, chunkIdOf(raw), encoded.codec, encoded.data);
        }
        await store.flush();
        const second = reopen();
        for (const raw of raws) {
          const id = chunkIdOf(raw);
          const info = await second.stat(acme, id);
          assert.ok(info, 'the chunk is visible to the second store');
          assert.deepEqual(Buffer.from(await second.get(acme, id, info.codec)), raw);
          assert.deepEqual(await second.put(acme, id, info.codec, raw), { created: false });
        }
      }));

    test('stores that write frames: framed chunks are durable after the writer flushes and read back verified from another store', () =>
      withSubject(async ({ store, reopen }) => {
        const writer = store.openWriter();
        if (!writer.putFramed) return; // one file (object) per chunk: no frames
        const raws = Array.from({ length: 24 }, (_, i) => corpusFile(i % 2 ? 'json' : 'log-like', 60_000, `contract-frames-${i}`));
        const puts = [];
        for (const raw of raws) puts.push(await writer.putFramed(acme, chunkIdOf(raw), raw));
        await writer.flush();
        const stored = (await Promise.all(puts.map((p) => p.storedLength))).reduce((a, b) => a + b, 0);
        assert.ok(stored < raws.reduce((n, r) => n + r.length, 0) / 3, `text frames compress (${stored} bytes stored)`);
        const second = reopen();
        for (const raw of raws) {
          const id = chunkIdOf(raw);
          assert.equal((await second.stat(acme, id))?.codec, 'zstd');
          assert.deepEqual(Buffer.from(await second.get(acme, id, 'zstd')), raw);
        }
        assert.equal((await second.openWriter().putFramed!(acme, chunkIdOf(raws[0]!), raws[0]!)).created, false);
      }));

    test('getMany, where a store has it, answers each request as get does; a damaged chunk fails alone, naming itself (decision 199)', () =>
      withSubject(async ({ store, overwrite }) => {
        if (!store.getMany) return; // optional: read-ahead then calls get per chunk
        const raws = Array.from({ length: 10 }, (_, i) => corpusFile(i % 3 === 0 ? 'log-like' : 'random', 20_000 + i * 1000, `contract-many-${i}`));
        const requests = [];
        for (const raw of raws) {
          const encoded = await encodeChunk(raw);
          await store.put(acme, chunkIdOf(raw), encoded.codec, encoded.data);
          requests.push({ id: chunkIdOf(raw), codec: encoded.codec, rawLengthHint: raw.length });
        }
        await store.flush();
        const got = await Promise.all(store.getMany(acme, requests, true));
        assert.deepEqual(got.map((b) => Buffer.from(b)), raws);
        const bad = requests[4]!;
        await overwrite(acme, bad.id, bad.codec, bad.codec === 'raw' ? corpusFile('random', raws[4]!.length, 'contract-many-bad') : (await encodeChunk(corpusFile('log-like', 9000, 'contract-many-bad'))).data);
        const unknown = chunkIdOf(Buffer.from('never stored'));
        const settled = await Promise.allSettled(store.getMany(acme, [...requests, { id: unknown, codec: 'raw' as const }], true));
        for (const [i, s] of settled.entries()) {
          if (i === 4) assert.ok(s.status === 'rejected' && rehydrationFailure('corrupt', bad.id)(s.reason), `request 4: ${s.status}`);
          else if (i === requests.length) assert.ok(s.status === 'rejected' && rehydrationFailure('missing', unknown)(s.reason), 'unknown chunk');
          else assert.deepEqual(s.status === 'fulfilled' ? Buffer.from(s.value) : s.reason, raws[i], `request ${i}`);
        }
      }));

    test('malformed scopes and chunk ids are refused before they name a file or an object', () =>
      withSubject(async ({ store }) => {
        const id = chunkIdOf(Buffer.from('a'));
        await assert.rejects(store.put('../escape' as ChunkScope, id, 'raw', Buffer.from('a')), TypeError);
        await assert.rejects(store.get(acme, 'ch_../../etc/passwd', 'raw'), TypeError);
        await assert.rejects(store.stat(acme, `${id}/../x`), TypeError);
      }));
  });
}

after(() => s3?.close());
