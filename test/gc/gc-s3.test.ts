/**
 * Garbage collection on the S3 backend (s3rver): dead pack objects are
 * deleted from the bucket, a pack object nothing recorded (a crash between
 * its PUT and its row) is removed once old, and what a retained manifest
 * references still reads back verified.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { chunkIdOf } from '../../src/svc/chunk-store/chunk-id.ts';
import { chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import { buildPack } from '../../src/svc/chunk-store/pack-format.ts';
import { newPackId } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { S3ChunkStore } from '../../src/svc/chunk-store/s3-chunk-store.ts';
import { S3PackFiles } from '../../src/svc/chunk-store/s3-pack-files.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import type { RequestContext } from '../../src/svc/context.ts';
import { GcService } from '../../src/svc/gc/gc-service.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import type { ByteManifest } from '../../src/svc/manifests/manifest.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { S3RVER_CREDENTIALS, startS3TestServer } from '../chunk-store/s3-test-server.ts';

test('GC on S3 packs: dead and orphan pack objects leave the bucket, retained chunks stay readable', async () => {
  const s3 = await startS3TestServer('gc-s3');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-gc-s3-'));
  const db = await openStore({ stateDir: dir });
  const connection = { bucket: s3.bucket, prefix: 'gc', region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS };
  const packs = new S3PackFiles(connection);
  const legacy = new S3ChunkStore(connection);
  try {
    let now = Date.now();
    const store = new PackedChunkStore({ packs, index: db.chunkPacks, legacy, packTargetBytes: 4096 });
    const scope = chunkScopeFor('tenant', 'acme');
    const keep = Array.from({ length: 3 }, (_, i) => Buffer.from(`keep ${i} `.repeat(600)));
    const drop = Array.from({ length: 6 }, (_, i) => Buffer.from(`drop ${i} `.repeat(600)));
    const keepWriter = store.openWriter();
    for (const raw of keep) await keepWriter.put(scope, chunkIdOf(raw), 'raw', raw);
    await keepWriter.flush();
    const dropWriter = store.openWriter();
    for (const raw of drop) await dropWriter.put(scope, chunkIdOf(raw), 'raw', raw);
    await dropWriter.flush();
    // A pack object written by a process that crashed before recording it.
    const orphanId = newPackId();
    await packs.write(scope, orphanId, buildPack([{ id: chunkIdOf(Buffer.from('x')), codec: 'raw', data: Buffer.from('x') }]).bytes);
    const packKeys = async () => (await s3.listKeys(`gc/${scope}/packs/`)).length;
    const before = await packKeys();

    const manifest = { manifest_id: 'mf_keep', tenant: 'acme', chunk_scope: scope, logical_ref: 's3://b/keep', state: 'active', state_reason: null, updated_at: new Date(now).toISOString(), chunks: keep.map((raw) => ({ id: chunkIdOf(raw), codec: 'raw' })) };
    const gc = new GcService({
      config: loadConfig({ env: {}, overrides: { 'gc.grace_minutes': 30, 'gc.multipart_expiry_hours': null } }).config,
      store,
      index: db.chunkPacks,
      leases: db.leases,
      manifests: { page: async (_t, after) => (after === '' ? [manifest as unknown as ByteManifest] : []), markRetentionExpired: async () => false },
      legalHolds: { active: async () => [] },
      multipart: { expireAbandoned: async () => [] },
      ledger: new LedgerAppender(db.ledger),
      now: () => new Date(now),
    });
    const ctx = { principal: makePrincipal('gc-s3', ['admin']), traceId: 'tr_gc_s3' } as RequestContext;
    now += 2 * 3_600_000;
    const first = await gc.run(ctx);
    assert.equal(first.chunks.condemned, drop.length);
    now += 2 * 3_600_000;
    const second = await gc.run(ctx);
    assert.equal(second.chunks.deleted, drop.length);
    assert.ok(second.packs.deleted > 0, JSON.stringify(second.packs));
    assert.equal(first.packs.orphans_deleted + second.packs.orphans_deleted, 1, 'the unrecorded pack, once older than an hour');
    assert.equal(await packKeys(), before - second.packs.deleted - 1);
    const fresh = new PackedChunkStore({ packs, index: db.chunkPacks, legacy });
    for (const raw of keep) assert.deepEqual(Buffer.from(await fresh.get(scope, chunkIdOf(raw), 'raw')), raw);
    for (const raw of drop) assert.equal(await fresh.stat(scope, chunkIdOf(raw)), undefined);
  } finally {
    await packs.close();
    await legacy.close();
    await db.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('whether a scope holds old-layout chunk objects is one listing request (no Delimiter, which s3rver ignores for nested keys)', async () => {
  const s3 = await startS3TestServer('gc-s3-scopes');
  const connection = { bucket: s3.bucket, prefix: 'p', region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS };
  const packs = new S3PackFiles(connection);
  const legacy = new S3ChunkStore(connection);
  try {
    const scopes = ['acme', 'globex', 'initech'].map((t) => chunkScopeFor('tenant', t));
    for (const scope of scopes) await packs.write(scope, newPackId(), buildPack([]).bytes);
    const raw = Buffer.from('an old-layout chunk');
    await legacy.put(scopes[1]!, chunkIdOf(raw), 'raw', raw);
    assert.deepEqual(await Promise.all(scopes.map((s) => legacy.holdsScope(s))), [false, true, false]);
    assert.equal(await legacy.holdsScope(chunkScopeFor('tenant', 'nobody')), false);
  } finally {
    await packs.close();
    await legacy.close();
    await s3.close();
  }
});
