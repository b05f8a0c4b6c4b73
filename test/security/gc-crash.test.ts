/**
 * Adversarial suite: kill -9 during garbage collection and repacking (issue
 * 12). A real `svc serve` process runs `POST /v1/admin/gc` back to back while
 * objects are deleted (tombstoned) and, every other round, put: pairs of
 * objects share a first segment, so their chunks are deduplicated across objects
 * and deleting one leaves packs partly dead, which GC then repacks. Garbage collection runs on a compressed time scale (a 3 s grace
 * period, tombstones expire at once, any dead share repacks) so that
 * condemnation, deletion, repacking and pack deletion all happen within the
 * run. Each round kills the server with SIGKILL and restarts it: in rounds
 * without ingest, right after a repack's new pack file appears (a new pack
 * can only be a repack's then) when one does within 4 s; otherwise at a
 * random moment inside a GC run (the delay drawn from the last runs' durations).
 *
 * After every restart, with writers paused, in the state the kill left:
 * - every pack the index names exists and parses whole, and each index row
 *   matches an entry of its pack (offset, length; a framed row its frame);
 * - every chunk of every active or quarantined manifest, acknowledged or
 *   not, is indexed in such a pack: no manifest points at a missing chunk;
 * - leftovers of a half-done repack or pack deletion are counted (pack rows
 *   no index row names, pack files with no row: later runs remove them);
 * then:
 * - a GC run completes (the dead process's lease does not block it);
 * - every acknowledged object reads back bit-exact, and every object whose
 *   delete was not acknowledged reads back bit-exact or is gone (404);
 * - the ledger chain verifies (`POST /v1/ledger/verify`).
 * At the end, once more after a last kill: the checks above, a restore test
 * `critical_full` over every manifest, two more GC runs, and the real
 * `svc ledger verify --offline` on the stopped server's database.
 *
 * SQLite + chunk directory, and PostgreSQL + S3 (s3rver) when
 * SVC_TEST_DATABASE_URL is set. SVC_GC_CRASH_KILLS raises the number of kills
 * (default 20), SVC_GC_CRASH_SEED changes the seed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { packKeySegments } from '../../src/svc/chunk-store/pack-files.ts';
import { parsePack } from '../../src/svc/chunk-store/pack-format.ts';
import { REPO } from '../attr/service/run-bin.ts';
import { startS3TestServer } from '../chunk-store/s3-test-server.ts';
import { engines, engineTarget } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';
import { ADMIN_KEY } from '../helpers/server.ts';
import { svcProcess } from '../helpers/svc-process.ts';
import { deleteAllowedBundle } from '../helpers/policy-bundles.ts';

const SEED = Number(process.env.SVC_GC_CRASH_SEED ?? 1212);
const KILLS = Number(process.env.SVC_GC_CRASH_KILLS ?? 20);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const DELETE_BUNDLE = deleteAllowedBundle('gcbucket');

/** GC on a compressed time scale; packs of 512 KiB, so that each put's new chunks land in one pack. */
const CONFIG = `
storage:
  pack_target_bytes: 524288
gc:
  grace_minutes: 0.05
  tombstone_retention_days: 0
  repack_dead_ratio: 0.05
  recompress_after_minutes: 0.05
`;

type Json = any;

/** Segment `j` of the chain objects are built from: noise (stored raw) or text-like (compressed). */
function segment(j: number): Buffer {
  const r = mulberry32(SEED * 31 + j);
  const b = Buffer.alloc(80_000 + Math.floor(r() * 70_000));
  const texty = j % 2 === 1;
  for (let k = 0; k < b.length; k++) b[k] = texty ? (r() < 0.1 ? 32 + Math.floor(r() * 90) : 97 + ((k * 7 + j) % 19)) : Math.floor(r() * 256);
  return b;
}

interface Db {
  all(sql: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

async function openDb(stateDir: string, databaseUrl: string | undefined, schema: string | undefined): Promise<Db> {
  if (!databaseUrl) {
    const db = new DatabaseSync(path.join(stateDir, 'svc.sqlite'), { readOnly: true });
    return { all: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>, close: async () => db.close() };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`SET search_path TO ${schema}`);
  return { all: async (sql) => (await client.query(sql)).rows, close: () => client.end() };
}

for (const engine of engines()) {
  const label = engine.name === 'postgres' ? 'PostgreSQL + S3' : 'SQLite + chunk directory';
  describe(`kill -9 during garbage collection and repacking (${label}, ${KILLS} kills, seed ${SEED})`, { skip: engine.skip }, () => {
    test('nothing acknowledged is lost, every indexed pack is whole, no manifest points at a missing chunk, the next GC completes, the chain verifies', { timeout: 600_000 }, async (t) => {
      const startedAt = Date.now();
      const target = await engineTarget(engine.name);
      const databaseUrl = target.databaseUrl && target.pgSchema ? `${target.databaseUrl}${target.databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${target.pgSchema}`)}` : undefined;
      const s3 = engine.name === 'postgres' ? await startS3TestServer('svc-gc-crash') : undefined;
      writeFileSync(path.join(target.stateDir, 'config.yaml'), CONFIG);
      // SQLite: BWT frames (opt-in, decision 158), so kills land inside framed repacks. PostgreSQL + S3: the default
      // (chunks compressed alone), so kills also land inside recompressions into dense frames (decision 207), and in
      // repacks that frame the live chunks of those again.
      const recompresses = engine.name === 'postgres';
      const env = { SVC_STATE_DIR: target.stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, ...(recompresses ? {} : { SVC_FRAME_CODEC: 'bwt' }), ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}), ...(s3 ? s3.svcEnv('chunks') : {}) };
      const svc = await svcProcess(env);
      const rand = mulberry32(SEED + (engine.name === 'postgres' ? 1 : 0));
      /** Acknowledged puts not deleted since, by key. */
      const alive = new Map<string, { sha256: string; size: number }>();
      /** Objects whose delete was sent but not acknowledged: either still there bit-exact, or gone. */
      const maybeDeleted = new Map<string, { sha256: string; size: number }>();
      const stats = { puts: 0, deletes: 0, gcRuns: 0, gcConflicts: 0, gcFailures: [] as string[], killsInGc: 0, repacked: 0, recompressed: 0, packsDeleted: 0, chunksDeleted: 0, bytesFreed: 0, leftovers: { emptyRows: 0, unrecorded: 0 }, lastLeftovers: 0, killsLeavingLeftovers: 0, killsInRepack: 0 };
      const gcDurations: number[] = [];
      let gcInFlight = false;
      let paused = true;
      let ingest = false;
      let stop = false;
      let db: Db | undefined;
      const post = async (route: string, body: unknown): Promise<Response | undefined> => {
        try {
          return await fetch(`${svc.url}${route}`, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        } catch {
          await sleep(20);
          return undefined; // refused or reset: not acknowledged
        }
      };
      // Objects 2g and 2g + 1 both start with segment g, then a part of their own. Chunking from offset 0 cuts the
      // shared segment the same way in both, so the second deduplicates against chunks the first wrote into its
      // pack beside its own part. Deleting the first kills its own part while the shared chunks stay live (the
      // second needs them): the pack becomes partly dead and GC repacks it.
      const objectBytes = (i: number): Buffer => {
        const r = mulberry32(SEED * 7919 + i);
        const own = Buffer.alloc(20_000 + Math.floor(r() * 40_000));
        for (let k = 0; k < own.length; k++) own[k] = i % 4 < 2 ? Math.floor(r() * 256) : r() < 0.1 ? 32 + Math.floor(r() * 90) : 97 + ((k * 5 + i) % 23);
        return Buffer.concat([segment(Math.floor(i / 2)), own]);
      };

      // Each loop reports whether it is between requests, so checks run with nothing in flight.
      const idle = [true, true, true];
      const loop = async (n: number, step: () => Promise<void>) => {
        while (!stop) {
          if (paused || (n === 0 && !ingest)) {
            idle[n] = true;
            await sleep(10);
            continue;
          }
          idle[n] = false;
          await step();
        }
        idle[n] = true;
      };
      let putIndex = 0;
      const putter = async () => {
        const i = putIndex++;
        const data = objectBytes(i);
        const key = `o-${i}.bin`;
        const res = await post('/v1/s3/objects', { tenant: 'crash', bucket: 'gcbucket', key, body_base64: data.toString('base64') });
        if (res?.status === 201) {
          alive.set(key, { sha256: sha(data), size: data.length });
          stats.puts++;
        } else await res?.arrayBuffer();
      };
      const deleter = async () => {
        // Keep about twenty objects: delete while there are more.
        if (alive.size <= 20) {
          await sleep(30);
          return;
        }
        // Mostly the first of a pair whose second is still there: that leaves a pack partly dead (see objectBytes).
        const keys = [...alive.keys()];
        const firsts = keys.filter((k) => Number(/\d+/.exec(k)![0]) % 2 === 0 && alive.has(`o-${Number(/\d+/.exec(k)![0]) + 1}.bin`));
        const from = firsts.length > 0 && rand() < 0.7 ? firsts : keys;
        const key = from[Math.floor(rand() * from.length)]!;
        const entry = alive.get(key)!;
        alive.delete(key);
        maybeDeleted.set(key, entry);
        const res = await post('/v1/s3/objects/delete', { tenant: 'crash', bucket: 'gcbucket', key });
        if (res?.status === 200) {
          maybeDeleted.delete(key);
          stats.deletes++;
        }
        await res?.arrayBuffer();
        await sleep(20);
      };
      const collector = async () => {
        gcInFlight = true;
        const began = Date.now();
        const res = await post('/v1/admin/gc', { dry_run: false });
        gcInFlight = false;
        if (!res) return;
        if (res.status === 200) {
          const r = ((await res.json()) as Json).result;
          gcDurations.push(Date.now() - began);
          count(r);
        } else if (res.status === 409) {
          stats.gcConflicts++;
          await res.arrayBuffer();
        } else stats.gcFailures.push(`${res.status} ${(await res.text()).slice(0, 300)}`);
      };
      const count = (r: Json) => {
        stats.gcRuns++;
        stats.repacked += r.packs.repacked;
        stats.recompressed += r.packs.recompressed;
        stats.packsDeleted += r.packs.deleted;
        stats.chunksDeleted += r.chunks.deleted;
        stats.bytesFreed += r.bytes_freed;
        if (process.env.SVC_GC_CRASH_TRACE) console.error(JSON.stringify({ manifests: r.manifests, chunks: r.chunks, packs: r.packs, ms: r.duration_ms }));
      };

      const call = async (method: string, route: string, body?: unknown) =>
        fetch(`${svc.url}${route}`, { method, headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const readPack = async (scope: string, packId: string): Promise<Uint8Array | undefined> => {
        const segments = packKeySegments(scope, packId);
        if (!s3) {
          try {
            return readFileSync(path.join(target.stateDir, 'chunks', ...segments));
          } catch {
            return undefined;
          }
        }
        try {
          const got = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: ['chunks', ...segments].join('/') }));
          return await got.Body!.transformToByteArray();
        } catch {
          return undefined;
        }
      };

      const listPackIds = async (): Promise<string[]> => {
        const ids = s3 ? await s3.listKeys('chunks/') : [];
        if (!s3) {
          const walk = (dir: string) => {
            let names: string[] = [];
            try {
              names = readdirSync(dir);
            } catch {
              return;
            }
            for (const n of names) {
              const p = path.join(dir, n);
              if (n.endsWith('.pack')) ids.push(n);
              else if (statSync(p).isDirectory()) walk(p);
            }
          };
          walk(path.join(target.stateDir, 'chunks'));
        }
        return ids.filter((k) => k.endsWith('.pack')).map((k) => path.basename(k, '.pack'));
      };

      /** The checks after a restart (writers paused). */
      const check = async (when: string) => {
        db ??= await openDb(target.stateDir, databaseUrl ? target.databaseUrl : undefined, target.pgSchema);
        const packs = await db.all('SELECT pack_id, scope, size_bytes FROM chunk_packs');
        const rows = await db.all('SELECT scope, chunk_id, codec, pack_id, pack_offset, stored_length, frame_length, frame_skip FROM chunk_index');
        const entries = new Map<string, Map<string, { codec: string; offset: number; length: number; skip?: number }>>();
        for (const p of packs) {
          const bytes = await readPack(String(p['scope']), String(p['pack_id']));
          if (!bytes) {
            // A pack row whose bytes are gone is harmless only while no index row names it.
            entries.set(String(p['pack_id']), new Map());
            continue;
          }
          assert.equal(bytes.byteLength, Number(p['size_bytes']), `${when}: pack ${p['pack_id']} has its recorded size`);
          const parsed = parsePack(bytes); // throws when the pack is cut short or damaged
          entries.set(String(p['pack_id']), new Map(parsed.map((e) => [`${e.id}.${e.codec}`, { codec: e.codec, offset: e.offset, length: e.length, ...(e.frame ? { skip: e.frame.skip } : {}) }])));
        }
        const indexed = new Set<string>();
        for (const r of rows) {
          const key = `${r['chunk_id']}.${r['codec']}`;
          const inPack = entries.get(String(r['pack_id']));
          assert.ok(inPack, `${when}: index row ${key} names pack ${r['pack_id']}, which has no pack row`);
          const e = inPack.get(key);
          assert.ok(e, `${when}: index row ${key} names pack ${r['pack_id']}, whose bytes are missing or do not hold it`);
          // A framed chunk's row names its frame (payload offset and length) and its place in the decoded frame.
          const framed = r['frame_length'] !== null && r['frame_length'] !== undefined;
          assert.deepEqual(
            [e.offset, e.length, e.skip],
            [Number(r['pack_offset']), Number(framed ? r['frame_length'] : r['stored_length']), framed ? Number(r['frame_skip']) : undefined],
            `${when}: index row ${key} matches its pack entry`,
          );
          indexed.add(`${r['scope']}/${key}`);
        }
        const manifests = await db.all("SELECT id, state, chunk_scope, body FROM manifests WHERE state IN ('active', 'quarantined')");
        let chunkRefs = 0;
        for (const m of manifests) {
          for (const c of (JSON.parse(String(m['body'])) as { chunks: Array<{ id: string; codec: string }> }).chunks) {
            chunkRefs++;
            assert.ok(indexed.has(`${m['chunk_scope']}/${c.id}.${c.codec}`), `${when}: ${m['state']} manifest ${m['id']} names chunk ${c.id}.${c.codec}, which is not in any pack`);
          }
        }
        // Leftovers of an interrupted repack or pack deletion, which later runs clean up: pack rows no index row
        // names, and pack files with no pack row (GC deletes those after an hour).
        const named = new Set(rows.map((r) => String(r['pack_id'])));
        const recorded = new Set(packs.map((p) => String(p['pack_id'])));
        const files = await listPackIds();
        const emptyRows = packs.filter((p) => !named.has(String(p['pack_id']))).length;
        const unrecorded = files.filter((id) => !recorded.has(id)).length;
        if (emptyRows + unrecorded > stats.lastLeftovers) stats.killsLeavingLeftovers++;
        stats.lastLeftovers = emptyRows + unrecorded;
        stats.leftovers = { emptyRows, unrecorded };

        // The state the kill left is checked above; now the next run must complete (the dead run's lease does not block it).
        const gc = await call('POST', '/v1/admin/gc', { dry_run: false });
        assert.equal(gc.status, 200, `${when}: a GC run after the restart completes: ${await gc.clone().text()}`);
        count(((await gc.json()) as Json).result);

        for (const [key, want] of [...alive, ...maybeDeleted]) {
          const res = await call('POST', '/v1/s3/objects/get', { tenant: 'crash', bucket: 'gcbucket', key });
          const body = new Uint8Array(await res.arrayBuffer());
          if (res.status === 404 && maybeDeleted.has(key)) {
            maybeDeleted.delete(key); // the delete went through before the kill
            continue;
          }
          assert.equal(res.status, 200, `${when}: object ${key}: ${Buffer.from(body).toString().slice(0, 300)}`);
          assert.equal(sha(body), want.sha256, `${when}: object ${key} is bit-exact`);
          if (maybeDeleted.delete(key)) alive.set(key, want); // the delete never happened
        }
        const verify = (await (await call('POST', '/v1/ledger/verify')).json()) as Json;
        assert.equal(verify.ok, true, `${when}: ledger chain: ${JSON.stringify(verify).slice(0, 400)}`);
        return { packs: packs.length, manifests: manifests.length, chunkRefs };
      };

      const waitIdle = async () => {
        while (idle.some((i) => !i)) await sleep(10);
      };

      try {
        await svc.start();
        const publish = await call('POST', '/v1/policies/bundles/default/publish', { document: DELETE_BUNDLE });
        assert.ok(publish.status === 200 || publish.status === 201, await publish.text());
        // A first population, so that the first rounds already have garbage to make.
        const seedStart = Date.now();
        for (let i = 0; i < 24; i++) await putter();
        if (process.env.SVC_GC_CRASH_TRACE) t.diagnostic(`seed puts ${Date.now() - seedStart} ms`);
        const running = [loop(0, putter), loop(1, deleter), loop(2, collector)];
        for (let k = 0; k < KILLS; k++) {
          ingest = k % 2 === 1; // every other round, ingest runs while GC does
          const packsBefore = new Set(await listPackIds());
          paused = false;
          let hitRepack = false;
          if (!ingest) {
            // Without ingest, a new pack file can only be a repack's: kill right after one appears, inside the
            // repack (its entries not yet moved, or the old pack not yet deleted). Else a random moment below.
            const until = Date.now() + 4000;
            while (!hitRepack && Date.now() < until) {
              hitRepack = (await listPackIds()).some((id) => !packsBefore.has(id));
              if (!hitRepack) await sleep(5);
            }
            if (hitRepack) await sleep(Math.floor(rand() * 20));
          }
          if (!hitRepack) {
            await sleep(200 + Math.floor(rand() * 500));
            while (!gcInFlight) await sleep(5);
            // A random moment inside a run: up to the longest of the recent runs.
            const recent = gcDurations.slice(-5);
            await sleep(Math.floor(rand() * (recent.length > 0 ? Math.max(...recent) : 200)));
          }
          if (hitRepack) stats.killsInRepack++;
          if (gcInFlight) stats.killsInGc++;
          await svc.kill('SIGKILL');
          paused = true;
          await waitIdle();
          const t0 = Date.now();
          await svc.start(); // no repair step: a plain restart
          const t1 = Date.now();
          await check(`after kill ${k + 1}`);
          if (process.env.SVC_GC_CRASH_TRACE) t.diagnostic(`kill ${k + 1}: restart ${t1 - t0} ms, checks ${Date.now() - t1} ms, alive ${alive.size}`);
        }
        await svc.kill('SIGKILL');
        await svc.start();
        const final = await check('after the last kill');
        stop = true;
        await Promise.all(running);
        t.diagnostic(
          `${KILLS} kills (${stats.killsInGc} inside a GC run, ${stats.killsInRepack} right after a repack wrote its new pack, ${Math.floor(KILLS / 2)} of the rounds with ingest running), ${stats.gcRuns} GC runs completed: ${stats.chunksDeleted} index rows deleted, ${stats.repacked} packs repacked, ${stats.recompressed} recompressed, ${stats.packsDeleted} packs deleted, ${stats.bytesFreed} bytes freed; ${stats.puts} puts, ${stats.deletes} deletes; ${stats.killsLeavingLeftovers} kills left a repack or pack deletion half done (now ${stats.leftovers.emptyRows} pack rows no index row names, ${stats.leftovers.unrecorded} pack files with no row: later runs remove them)`,
        );
        assert.deepEqual(stats.gcFailures, [], 'no GC run failed');
        assert.equal(stats.gcConflicts, 0, 'no GC run was refused for a lease a dead process held');
        assert.ok(stats.killsInGc >= KILLS / 2, `most kills land inside a GC run (${stats.killsInGc} of ${KILLS})`);
        assert.ok(stats.repacked > 0 && stats.packsDeleted > 0 && stats.chunksDeleted > 0, 'GC deleted chunks, repacked and deleted packs during the run');
        assert.ok(stats.killsInRepack >= 1, 'at least one kill landed inside a repack');
        if (recompresses) assert.ok(stats.recompressed > 0, 'GC recompressed packs during the run');

        const restoreRes = await call('POST', '/v1/admin/restore-tests', { kind: 'critical_full', tenant: 'crash', prefixes: ['s3://'] });
        assert.equal(restoreRes.status, 200, await restoreRes.clone().text());
        const { result: restore } = (await restoreRes.json()) as { result: { status: string; checked: number } };
        assert.equal(restore.status, 'passed', JSON.stringify(restore).slice(0, 600));
        assert.ok(restore.checked >= alive.size, `restored ${restore.checked} manifests`);
        for (let n = 0; n < 2; n++) {
          const again = await call('POST', '/v1/admin/gc', { dry_run: false });
          assert.equal(again.status, 200, await again.clone().text());
          await again.arrayBuffer();
        }
        await svc.kill('SIGTERM');
        await db?.close();
        db = undefined;
        const verify = spawnSync(process.execPath, [path.join(REPO, 'bin/svc.mjs'), 'ledger', 'verify', '--offline', '--json'], { env: { ...process.env, ...env, SVC_DATABASE_URL: env.SVC_DATABASE_URL ?? '' }, encoding: 'utf8' });
        assert.equal(verify.status, 0, verify.stdout + verify.stderr);
        t.diagnostic(`final state: ${final.manifests} retained manifests naming ${final.chunkRefs} chunks in ${final.packs} packs; ${restore.checked} manifests restored bit-exact; ledger: ${JSON.parse(verify.stdout).checked} events verify; ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- svc output (tail) ---\n${svc.output().slice(-1500)}`);
      } finally {
        stop = true;
        await svc.kill('SIGKILL');
        await db?.close().catch(() => undefined);
        await s3?.close();
        await target.cleanup();
      }
    });
  });
}
