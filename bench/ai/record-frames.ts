/**
 * What the durable records of one AI cache miss write, in SQLite pages, at
 * 64 requests in flight (docs/decisions/183). The same set-up as
 * `gateway-overhead` (svc alone in this process on SQLite, the mock upstream
 * and the load generator in child processes), then a window of unique chat
 * requests during which nothing checkpoints: the WAL's frames are counted
 * and placed in the b-trees they belong to.
 *
 *   node bench/ai/record-frames.ts            # 2,000 misses after 5,000 warm-up ones
 *   MISSES=4000 WARMUP=10000 node bench/ai/record-frames.ts
 *
 * Frames are what a commit costs per page (two `pwrite`s, a checksum, the
 * fsync's share, the checkpoint's later copy); unlike CPU time they do not
 * move with the machine's load, so a change to the records can be judged by
 * them on a shared machine. Prints frames per miss by b-tree, requests and
 * frames per commit, distinct pages per miss (what a checkpoint copies) and,
 * for orientation only, svc's CPU per miss in the window. Writes nothing
 * to bench/results.
 */
import { ADMIN_KEY, startTestServer } from '../../test/helpers/server.ts';
import { framesByBtree, readWal } from '../../src/svc/benchmarks/wal-frames.ts';
import type { LoadJob, Target } from '../../src/svc/benchmarks/http-load.ts';
import type { SqliteDb } from '../../src/svc/store/sqlite-db.ts';
import { startLoadProcess, startMockProcess } from './child-processes.ts';

const MISSES = Number(process.env.MISSES ?? 2000);
const WARMUP = Number(process.env.WARMUP ?? 5000);
const CONCURRENCY = 64;

const mock = await startMockProcess();
const load = startLoadProcess();
const providers = JSON.stringify([{ name: 'mock', base_url: mock.url, models: [{ id: 'mock-small', size_class: 'small' }] }]);
const svc = await startTestServer({ env: { SVC_PROVIDERS_JSON: providers, SVC_LOG_LEVEL: 'warn' } });
try {
  const target: Target = { name: 'svc', url: `${svc.url}/v1`, headers: { 'x-api-key': ADMIN_KEY } };
  let offset = 0;
  const job = (count: number): LoadJob => {
    offset += 1_000_000;
    return { target, path: '/chat/completions', count, concurrency: CONCURRENCY, body: { model: 'mock-small', prefix: 'record frames', unique: true, offset } };
  };
  const db = svc.app.store.db as SqliteDb;
  if (db.dialect !== 'sqlite') throw new Error('record-frames measures SQLite');
  const file = (await db.all<{ name: string; file: string }>('PRAGMA database_list')).find((d) => d.name === 'main')?.file;
  if (!file) throw new Error('no database file');

  await load.run(job(WARMUP));
  // An empty WAL, and no checkpoint during the window (one would restart the WAL under the count).
  await db.exec('PRAGMA wal_autocheckpoint = 0');
  await db.checkpoint();
  const cpu0 = process.cpuUsage();
  const r = await load.run(job(MISSES));
  const cpu = process.cpuUsage(cpu0);
  if (r.errors > 0) throw new Error(`${r.errors} requests failed`);
  const wal = readWal(`${file}-wal`);
  // Pages the window added to the file are placed once the WAL is in it.
  await db.checkpoint();
  await db.exec('PRAGMA wal_autocheckpoint = 1000');

  const per = (n: number) => (n / MISSES).toFixed(3);
  console.log(`${MISSES} cache misses at ${CONCURRENCY} in flight after ${WARMUP} warm-up misses (SQLite, page size ${wal.pageSize})`);
  console.log(`frames per miss ${per(wal.pages.length)}, distinct pages per miss ${per(new Set(wal.pages).size)}`);
  console.log(`commits ${wal.commits}: ${(MISSES / wal.commits).toFixed(1)} misses and ${(wal.pages.length / wal.commits).toFixed(1)} frames per commit`);
  console.log(`svc CPU per miss in the window ${((cpu.user + cpu.system) / MISSES).toFixed(0)} µs (load-dependent; compare in interleaved A/B rounds)`);
  console.log('frames per miss by b-tree:');
  for (const { btree, frames } of framesByBtree(file, wal.pages)) console.log(`  ${per(frames).padStart(7)}  ${btree}`);
} finally {
  load.stop();
  await svc.close();
  mock.stop();
}
