/**
 * Property test of garbage collection (issue 12): over random histories of
 * ingests (some abandoned before their manifest, some still in flight while
 * GC runs), deletes, quarantines, legal holds placed and released, clock
 * jumps and GC runs, GC never deletes a stored form that a live,
 * tombstoned-within-retention, quarantined or held manifest needs — every
 * such manifest reads back verified from a fresh store after every run. It
 * must also actually free space (deleted chunks and packs across the run)
 * and recompress packs of chunks compressed alone into dense frames.
 * On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { encodeChunk } from '../../src/svc/chunking/chunk-codec.ts';
import { chunkIdOf } from '../../src/svc/chunk-store/chunk-id.ts';
import { type ChunkScope, chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import type { ChunkWriter } from '../../src/svc/chunk-store/chunk-store.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { FsPackFiles } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import type { RequestContext } from '../../src/svc/context.ts';
import { GcService } from '../../src/svc/gc/gc-service.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import type { LegalHold } from '../../src/svc/legal-holds/legal-hold.ts';
import type { ByteManifest } from '../../src/svc/manifests/manifest.ts';
import { useStore } from '../helpers/store-fixture.ts';
import { engines } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';

const SEEDS = [11, 23, 37, 41, 53];
const STEPS = 220;
const RETENTION_DAYS = 2;
const GRACE_MINUTES = 30;
const ctx: RequestContext = { principal: makePrincipal('gc-test', ['admin']), traceId: 'tr_gc_property' } as RequestContext;

interface Model extends Pick<ByteManifest, 'manifest_id' | 'tenant' | 'chunk_scope' | 'logical_ref' | 'state' | 'state_reason' | 'updated_at'> {
  chunks: Array<{ id: string; codec: 'raw' | 'zstd' }>;
}

for (const engine of engines()) {
  describe(`GC property over random histories (${engine.name})`, { skip: engine.skip }, () => {
    const fixture = useStore(engine.name);

    let recompressed = 0;
    for (const seed of SEEDS) {
      test(`seed ${seed}: no needed chunk is ever deleted, and space is freed`, { timeout: 240_000 }, async () => {
        const { store: db } = fixture;
        await db.db.exec('DELETE FROM chunk_index; DELETE FROM chunk_packs; DELETE FROM gc_leases');
        const root = mkdtempSync(path.join(os.tmpdir(), 'svc-gc-prop-'));
        try {
          recompressed += await runHistory(seed, root, db);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      });
    }
    test('the histories covered recompression: packs of chunks compressed alone were rewritten into dense frames and read back', () => {
      assert.ok(recompressed > 0, `GC recompressed ${recompressed} packs over ${SEEDS.length} histories`);
    });
  });
}

/** Runs one history; returns how many packs GC recompressed along the way. */
async function runHistory(seed: number, root: string, db: ReturnType<typeof useStore>['store']): Promise<number> {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let now = Date.parse('2030-01-01T00:00:00Z');
  const config = loadConfig({ env: {}, overrides: { 'gc.tombstone_retention_days': RETENTION_DAYS, 'gc.grace_minutes': GRACE_MINUTES, 'gc.repack_dead_ratio': 0.4, 'gc.multipart_expiry_hours': null } }).config;
  const files = new FsPackFiles({ root, fsync: false });
  // A store whose index rows carry the test's clock: GC compares them with its own.
  const open = () => new PackedChunkStore({ packs: files, index: db.chunkPacks, legacy: new FsChunkStore({ root, fsyncFiles: false }), packTargetBytes: 6 * 1024, frameTargetBytes: 2 * 1024 });
  const store = open();
  const realDate = Date;
  const models: Model[] = [];
  const holds: LegalHold[] = [];
  const gc = new GcService({
    config,
    store,
    index: db.chunkPacks,
    leases: db.leases,
    manifests: {
      page: async (_tenant, after, limit) =>
        models
          .filter((m) => m.manifest_id > after)
          .sort((a, b) => (a.manifest_id < b.manifest_id ? -1 : 1))
          .slice(0, limit)
          .map((m) => ({ ...m, chunks: m.chunks.map((c) => ({ ...c, offset: 0, length: 0, stored_length: 0 })) }) as unknown as ByteManifest),
      markRetentionExpired: async (id) => {
        const m = models.find((x) => x.manifest_id === id && x.state === 'tombstoned');
        if (m) m.state_reason = 'retention_expired';
        return m !== undefined;
      },
    },
    legalHolds: { active: async () => holds.filter((h) => h.released_at === null) },
    multipart: { expireAbandoned: async () => [] },
    ledger: new LedgerAppender(db.ledger),
    now: () => new realDate(now),
  });

  const tenants = ['acme', 'globex'];
  const pool = new Map<string, Buffer[]>();
  for (const t of tenants) pool.set(t, Array.from({ length: 24 }, (_, i) => Buffer.from(`${t}:${seed}:${i}:`.repeat(20 + Math.floor(rand() * 120)))));
  let serial = 0;
  const inFlight: Array<{ writer: ChunkWriter; model: Model; startedAt: number }> = [];
  const totals = { deleted: 0, packsDeleted: 0, repacked: 0, recompressed: 0, runs: 0 };

  /** Chunks of abandoned ingests: what GC condemns, and what an in-flight ingest likes to deduplicate against. */
  const orphans = new Map<string, Buffer[]>(tenants.map((t) => [t, []]));
  /** Writes chunks as ingest does (stat, reuse or put), with the index rows stamped at the test clock. */
  const ingestChunks = async (writer: ChunkWriter, tenant: string, preferOrphans = false): Promise<Model['chunks']> => {
    const scope = chunkScopeFor('tenant', tenant);
    const from = preferOrphans && orphans.get(tenant)!.length > 0 ? orphans.get(tenant)! : pool.get(tenant)!;
    const chosen = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(from));
    // Most objects also hold bytes of their own, which only their manifest references.
    if (rand() < 0.7) chosen.push(Buffer.from(`own:${tenant}:${seed}:${serial}:${rand()}:`.repeat(8 + Math.floor(rand() * 40))));
    const refs: Model['chunks'] = [];
    for (const raw of chosen) {
      const id = chunkIdOf(raw);
      const existing = await writer.stat(scope, id);
      if (existing) {
        refs.push({ id, codec: existing.codec });
        continue;
      }
      const form = rand();
      if (form < 0.4 && writer.putFramed) {
        // In a frame with its neighbours (decision 157): repacks must re-frame the live ones.
        await writer.putFramed(scope, id, raw);
        refs.push({ id, codec: 'zstd' });
        continue;
      }
      const encoded = form < 0.7 ? await encodeChunk(raw) : { codec: 'raw' as const, data: raw };
      await writer.put(scope, id, encoded.codec, encoded.data);
      refs.push({ id, codec: encoded.codec });
    }
    return refs;
  };
  const withClock = async <T>(fn: () => Promise<T>): Promise<T> => {
    // Index rows are stamped with new Date(): run the flush at the test clock.
    const RealDate = globalThis.Date;
    class TestDate extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(now);
        else super(...(args as [number]));
      }
      static override now() {
        return now;
      }
    }
    globalThis.Date = TestDate as DateConstructor;
    try {
      return await fn();
    } finally {
      globalThis.Date = RealDate;
    }
  };
  const newModel = (tenant: string, chunks: Model['chunks']): Model => ({
    manifest_id: `mf_${String(++serial).padStart(8, '0')}`,
    tenant,
    chunk_scope: chunkScopeFor('tenant', tenant),
    logical_ref: `s3://${tenant}-bucket/obj-${serial}`,
    state: 'active',
    state_reason: null,
    updated_at: new realDate(now).toISOString(),
    chunks,
  });

  // Holds are only placed on manifests GC has not expired yet (see the hold step), so a held manifest is needed whatever GC marked.
  const needed = (m: Model): boolean => {
    const held = holds.some((h) => h.released_at === null && h.tenant === m.tenant && (h.scope === 'tenant' || (h.scope === 'manifest' && h.target === m.manifest_id) || (h.scope === 'prefix' && `${m.logical_ref.slice('s3://'.length)}`.startsWith(h.target))));
    if (m.state === 'active' || m.state === 'quarantined' || held) return true;
    // Computed here, not read from what GC marked: a tombstone is needed while it is within retention.
    return Date.parse(m.updated_at) > now - RETENTION_DAYS * 86_400_000;
  };

  const check = async (when: string) => {
    const fresh = open(); // no pending entries, no cache: only what is durable and indexed
    for (const m of models.filter(needed)) {
      for (const c of m.chunks) {
        await assert.doesNotReject(fresh.get(m.chunk_scope as ChunkScope, c.id, c.codec), `${when}: ${m.manifest_id} (${m.state}) needs ${c.id}.${c.codec}`);
      }
    }
  };

  for (let step = 0; step < STEPS; step++) {
    const r = rand();
    if (r < 0.3) {
      const tenant = pick(tenants);
      const writer = store.openWriter();
      const chunks = await ingestChunks(writer, tenant);
      await withClock(() => writer.flush());
      models.push(newModel(tenant, chunks));
    } else if (r < 0.37) {
      // Abandoned ingest: chunks written (fresh ones, from outside the pool), no manifest.
      const tenant = pick(tenants);
      const scope = chunkScopeFor('tenant', tenant);
      const writer = store.openWriter();
      for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
        const raw = Buffer.from(`orphan:${tenant}:${seed}:${step}:${k}:`.repeat(10 + Math.floor(rand() * 60)));
        await writer.put(scope, chunkIdOf(raw), 'raw', raw);
        orphans.get(tenant)!.push(raw);
      }
      await withClock(() => writer.flush());
    } else if (r < 0.45) {
      // An ingest that deduplicates now (often against orphans GC is about to condemn) and commits its manifest later.
      const tenant = pick(tenants);
      const writer = store.openWriter();
      const chunks = await ingestChunks(writer, tenant, rand() < 0.7);
      inFlight.push({ writer, model: newModel(tenant, chunks), startedAt: now });
    } else if (r < 0.5 && inFlight.length > 0) {
      const f = inFlight.shift()!;
      await withClock(() => f.writer.flush());
      f.model.updated_at = new realDate(now).toISOString();
      models.push(f.model);
    } else if (r < 0.62) {
      const active = models.filter((m) => m.state === 'active');
      if (active.length > 0) {
        const m = pick(active);
        m.state = 'tombstoned';
        m.state_reason = 'object_deleted';
        m.updated_at = new realDate(now).toISOString();
      }
    } else if (r < 0.67) {
      const candidates = models.filter((m) => (m.state === 'active' || m.state === 'tombstoned') && m.state_reason !== 'retention_expired');
      if (candidates.length > 0) {
        const m = pick(candidates);
        m.state = 'quarantined';
        m.state_reason = 'rehydration_failed';
        m.updated_at = new realDate(now).toISOString();
      }
    } else if (r < 0.7) {
      const candidates = models.filter((m) => m.state_reason !== 'retention_expired');
      if (candidates.length > 0) {
        const m = pick(candidates);
        const kind = pick(['manifest', 'prefix', 'tenant'] as const);
        // A prefix or tenant hold covers only manifests GC has not expired yet; the property asks for those.
        const target = kind === 'manifest' ? m.manifest_id : kind === 'prefix' ? m.logical_ref.slice('s3://'.length, 's3://'.length + 12) : '';
        if (kind === 'manifest' || !models.some((x) => x.tenant === m.tenant && x.state_reason === 'retention_expired')) {
          holds.push({ id: `lh_${holds.length}`, tenant: m.tenant, scope: kind, target, reason: 'case', placed_by: 't', placed_at: '', released_by: null, released_at: null });
        }
      }
    } else if (r < 0.74) {
      const active = holds.filter((h) => h.released_at === null);
      if (active.length > 0) pick(active).released_at = new realDate(now).toISOString();
    } else if (r < 0.84) {
      // Jumps shorter than the grace period keep in-flight ingests honest (they commit within it); sometimes days pass.
      const oldestInFlight = inFlight.length > 0 ? Math.min(...inFlight.map((f) => f.startedAt)) : undefined;
      let jump = rand() < 0.6 ? Math.floor(rand() * 20) * 60_000 : Math.floor(rand() * 3 * 86_400_000);
      if (oldestInFlight !== undefined) jump = Math.min(jump, oldestInFlight + (GRACE_MINUTES - 1) * 60_000 - now);
      now += Math.max(0, jump);
    } else {
      const report = await withClock(() => gc.run(ctx));
      totals.runs++;
      totals.deleted += report.chunks.deleted;
      totals.packsDeleted += report.packs.deleted;
      totals.repacked += report.packs.repacked;
      totals.recompressed += report.packs.recompressed;
      await check(`after GC run ${totals.runs} (step ${step})`);
    }
  }
  // Commit what is still in flight, let time pass, collect twice: the end state must hold too.
  for (const f of inFlight.splice(0)) {
    await withClock(() => f.writer.flush());
    f.model.updated_at = new realDate(now).toISOString();
    models.push(f.model);
  }
  for (let k = 0; k < 2; k++) {
    now += 3 * 86_400_000;
    const report = await withClock(() => gc.run(ctx));
    totals.deleted += report.chunks.deleted;
    totals.packsDeleted += report.packs.deleted;
    totals.repacked += report.packs.repacked;
    totals.recompressed += report.packs.recompressed;
    await check(`final GC run ${k + 1}`);
  }
  assert.ok(totals.deleted > 0, `GC deleted chunks (${JSON.stringify(totals)})`);
  assert.ok(totals.packsDeleted + totals.repacked > 0, `GC freed packs (${JSON.stringify(totals)})`);
  return totals.recompressed;
}
