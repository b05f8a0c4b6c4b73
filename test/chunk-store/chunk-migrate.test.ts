/**
 * Old one-file-per-chunk chunk directories and `svc chunks migrate`, through
 * a real `svc serve` process and the real CLI (SQLite + chunk directory; on
 * PostgreSQL + S3 when SVC_TEST_DATABASE_URL is set):
 *
 * - objects written by the old layout (`storage.chunk_layout: files`) read
 *   back bit-exact once the server runs with packs, before any migration;
 * - `--dry-run` counts and changes nothing;
 * - a run packs every verified old file and removes it; a damaged file is
 *   reported and left in place;
 * - a run killed after its packs were indexed but before the old files went
 *   (simulated by putting the files back) is finished by the next run, which
 *   finds them packed and removes them; a run with nothing left finds nothing;
 * - every run is a `storage.chunks_migrated` ledger event; objects stay bit-exact throughout.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { startS3TestServer } from './s3-test-server.ts';
import { runSvc } from '../helpers/cli.ts';
import { engines, engineTarget } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';
import { ADMIN_KEY } from '../helpers/server.ts';
import { svcProcess } from '../helpers/svc-process.ts';

type Json = any;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function objectBytes(seed: number, n: number, texty: boolean): Buffer {
  const r = mulberry32(seed);
  const b = Buffer.alloc(n);
  for (let k = 0; k < n; k++) b[k] = texty ? 97 + ((k * 7 + Math.floor(r() * 3)) % 26) : Math.floor(r() * 256);
  return b;
}

/** Old-layout chunk files under a chunk directory (not packs), relative paths. */
function oldFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (n === 'packs') continue;
      const p = path.join(dir, n);
      if (statSync(p).isDirectory()) walk(p, path.join(rel, n));
      else if (/\.(raw|zst)$/.test(n)) out.push(path.join(rel, n));
    }
  };
  walk(root, '');
  return out.sort();
}

for (const engine of engines()) {
  const label = engine.name === 'postgres' ? 'PostgreSQL + S3' : 'SQLite + chunk directory';
  describe(`old chunk layout and svc chunks migrate (${label})`, { skip: engine.skip }, () => {
    test('old chunks read as they are; migrate packs them idempotently, removing old files only once packed; dry run changes nothing', { timeout: 300_000 }, async () => {
      const target = await engineTarget(engine.name);
      const databaseUrl = target.databaseUrl && target.pgSchema ? `${target.databaseUrl}${target.databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${target.pgSchema}`)}` : undefined;
      const s3 = engine.name === 'postgres' ? await startS3TestServer('svc-migrate') : undefined;
      const env = { SVC_STATE_DIR: target.stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}), ...(s3 ? s3.svcEnv('chunks') : {}) };
      const chunkDir = path.join(target.stateDir, 'chunks');
      const listOld = async (): Promise<string[]> => (s3 ? (await s3.listKeys('chunks/')).filter((k) => !k.includes('/packs/') && /\.(raw|zst)$/.test(k)) : oldFiles(chunkDir));
      const readOld = async (k: string): Promise<Buffer> =>
        s3 ? Buffer.from(await (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: k }))).Body!.transformToByteArray()) : readFileSync(path.join(chunkDir, k));
      const writeOld = async (k: string, bytes: Buffer): Promise<void> => {
        if (s3) return s3.putObject(k, bytes);
        mkdirSync(path.dirname(path.join(chunkDir, k)), { recursive: true });
        writeFileSync(path.join(chunkDir, k), bytes);
      };
      const svc = await svcProcess(env);
      const call = async (method: string, route: string, body?: unknown) =>
        fetch(`${svc.url}${route}`, { method, headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const cli = async (...args: string[]) => {
        const r = await runSvc(['--json', 'chunks', 'migrate', ...args], { SVC_URL: svc.url, SVC_API_KEY: ADMIN_KEY });
        assert.equal(r.status, 0, r.stderr + r.stdout);
        return JSON.parse(r.stdout).result as Json;
      };
      const objects = [
        { key: 'random.bin', data: objectBytes(1, 400_000, false) },
        { key: 'text.txt', data: objectBytes(2, 300_000, true) },
        { key: 'small.bin', data: objectBytes(3, 5_000, false) },
        { key: 'damaged.bin', data: objectBytes(4, 30_000, false) },
      ];
      const readAll = async (when: string, skip: string[] = []) => {
        for (const o of objects) {
          if (skip.includes(o.key)) continue;
          const res = await call('POST', '/v1/s3/objects/get', { tenant: 'legacy', bucket: 'old-layout', key: o.key });
          const body = new Uint8Array(await res.arrayBuffer());
          assert.equal(res.status, 200, `${when}: ${o.key}: ${Buffer.from(body).toString().slice(0, 300)}`);
          assert.equal(sha(body), sha(o.data), `${when}: ${o.key} is bit-exact`);
        }
      };
      try {
        // An svc that writes the old layout.
        writeFileSync(path.join(target.stateDir, 'config.yaml'), 'storage:\n  chunk_layout: files\n');
        await svc.start();
        for (const o of objects) {
          const r = await call('POST', '/v1/s3/objects', { tenant: 'legacy', bucket: 'old-layout', key: o.key, body_base64: o.data.toString('base64') });
          assert.equal(r.status, 201, await r.text());
        }
        await svc.kill('SIGTERM');
        const written = await listOld();
        assert.ok(written.length >= 6, `old-layout files written: ${written.length}`);

        // The same store under the default layout: packs, with the old files read as they are.
        writeFileSync(path.join(target.stateDir, 'config.yaml'), '');
        await svc.start();
        await readAll('before migrating');

        // Damage the first chunk of one object: its file is reported and left in place.
        const damagedManifest = (await (await call('POST', '/v1/s3/objects/head', { tenant: 'legacy', bucket: 'old-layout', key: 'damaged.bin' })).json()) as Json;
        const manifest = (await (await call('GET', `/v1/manifests/${damagedManifest.object?.manifest_id ?? damagedManifest.manifest_id}`)).json()) as Json;
        const victim = manifest.chunks[0] as { id: string; codec: string };
        const victimKey = written.find((k) => k.includes(victim.id.slice(3)))!;
        assert.ok(victimKey, 'the damaged chunk has an old-layout file');
        const damaged = await readOld(victimKey);
        damaged[damaged.length >> 1] = damaged[damaged.length >> 1]! ^ 0xff;
        await writeOld(victimKey, damaged);

        const dry = await cli('--dry-run');
        assert.equal(dry.dry_run, true);
        assert.equal(dry.found.files, written.length);
        assert.equal(dry.migrated.chunks, written.length - 1);
        assert.deepEqual(dry.damaged.map((d: Json) => d.chunk_id), [victim.id]);
        assert.deepEqual(await listOld(), written, 'a dry run changes nothing');

        // Keep copies of the old files to simulate a run killed after its packs and index rows were durable,
        // before it removed the old files.
        const copies = new Map<string, Buffer>();
        for (const k of written) copies.set(k, await readOld(k));

        const first = await cli();
        assert.deepEqual([first.migrated.chunks, first.removed, first.already_packed, first.damaged.length], [written.length - 1, written.length - 1, 0, 1]);
        assert.deepEqual(await listOld(), [victimKey], 'only the damaged file is left');
        await readAll('after migrating', ['damaged.bin']);

        for (const [k, bytes] of copies) if (k !== victimKey) await writeOld(k, bytes);
        assert.deepEqual(await listOld(), written);
        const second = await cli();
        assert.deepEqual([second.migrated.chunks, second.already_packed, second.removed], [0, written.length - 1, written.length - 1], JSON.stringify(second));
        assert.deepEqual(await listOld(), [victimKey]);
        await readAll('after the rerun', ['damaged.bin']);
        const third = await cli();
        assert.deepEqual([third.found.files, third.migrated.chunks, third.removed], [1, 0, 0]);

        const events = ((await (await call('POST', '/v1/ledger/query', { event_types: ['storage.chunks_migrated'], limit: 10 })).json()) as Json).events;
        assert.deepEqual(
          events.map((e: Json) => [e.payload.dry_run, e.payload.migrated.chunks]),
          [
            [true, written.length - 1],
            [false, written.length - 1],
            [false, 0],
            [false, 0],
          ],
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- svc output (tail) ---\n${svc.output().slice(-1500)}`);
      } finally {
        await svc.kill('SIGKILL');
        await s3?.close();
        await target.cleanup();
      }
    });
  });
}
