/**
 * Adversarial suite: crashes (issue 15). A real `svc serve` process takes
 * four concurrent writers — object puts, multipart uploads, exact cache
 * stores and byte work units executed through the planner (each of them
 * appends to the ledger) — while it is killed with SIGKILL at seeded random
 * moments and restarted, at least 20 times. Afterwards: every acknowledged
 * object reads back bit-exact, every acknowledged cache entry is there, the
 * ledger chain verifies with the real CLI, and every manifest (acknowledged
 * or not) restores fully from its chunks (restore test `critical_full`), so
 * no manifest points at a missing chunk. Restarting needs no manual repair.
 *
 * SVC_CRASH_KILLS raises the number of kills (default 20).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, test } from 'node:test';
import { engines, engineTarget } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';
import { ADMIN_KEY } from '../helpers/server.ts';
import { svcProcess } from '../helpers/svc-process.ts';
import { REPO } from '../attr/service/run-bin.ts';
import { startS3TestServer } from '../chunk-store/s3-test-server.ts';

const SEED = Number(process.env.SVC_CRASH_SEED ?? 2020);
const KILLS = Number(process.env.SVC_CRASH_KILLS ?? 20);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

type Ack = { kind: 'object' | 'multipart' | 'execute'; bucket: string; key: string; sha256: string; size: number } | { kind: 'cache'; key: string; text: string };

for (const engine of engines()) {
  describe(`kill -9 under four concurrent writers (${engine.name === 'postgres' ? 'PostgreSQL + S3' : 'SQLite + chunk directory'}, ${KILLS} kills, seed ${SEED})`, { skip: engine.skip }, () => {
    test('nothing acknowledged is lost, the chain verifies, no manifest points at a missing chunk', { timeout: 600_000 }, async (t) => {
      const target = await engineTarget(engine.name);
      // A PostgreSQL schema per run is passed to the child through the connection's search_path.
      const databaseUrl = target.databaseUrl && target.pgSchema ? `${target.databaseUrl}${target.databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${target.pgSchema}`)}` : undefined;
      // PostgreSQL runs with the production chunk backend, S3 (s3rver); SQLite with the embedded chunk directory.
      const s3 = engine.name === 'postgres' ? await startS3TestServer('svc-crash') : undefined;
      const env = { SVC_STATE_DIR: target.stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}), ...(s3 ? s3.svcEnv('chunks') : {}) };
      const svc = await svcProcess(env);
      const rand = mulberry32(SEED);
      const acks: Ack[] = [];
      let attempts = 0;
      let stop = false;
      try {
        await svc.start();
        const post = async (route: string, body: unknown): Promise<Response | undefined> => {
          attempts++;
          try {
            return await fetch(`${svc.url}${route}`, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          } catch {
            await new Promise((r) => setTimeout(r, 20));
            return undefined; // connection refused or reset: not acknowledged
          }
        };
        const bytes = (n: number, writer: number, i: number) => {
          const r = mulberry32(SEED * 1000 + writer * 100_000 + i);
          const b = Buffer.alloc(n);
          for (let k = 0; k < n; k++) b[k] = r() < 0.5 ? Math.floor(r() * 256) : 97 + (k % 7); // half noise, half text: chunking and compression both work
          return b;
        };
        const writers = [
          async () => {
            for (let i = 0; !stop; i++) {
              const data = bytes(1024 + Math.floor(rand() * 200_000), 0, i);
              const res = await post('/v1/s3/objects', { tenant: 'crash', bucket: 'puts', key: `o-${i}.bin`, body_base64: data.toString('base64') });
              if (res?.status === 201) acks.push({ kind: 'object', bucket: 'puts', key: `o-${i}.bin`, sha256: sha(data), size: data.length });
              else await res?.arrayBuffer();
            }
          },
          async () => {
            for (let i = 0; !stop; i++) {
              const create = await post('/v1/s3/multipart/create', { tenant: 'crash', bucket: 'uploads', key: `m-${i}.bin` });
              if (create?.status !== 201) continue;
              const { upload_id } = (await create.json()) as { upload_id: string };
              // Every part but the last is at least 5 MiB (S3's rule): most uploads are one part, every fifth is two.
              const parts = i % 5 === 4 ? [bytes(5 * 1024 * 1024, 1, i * 10), bytes(90_000, 1, i * 10 + 1)] : [bytes(60_000 + Math.floor(rand() * 100_000), 1, i * 10)];
              const sent: Array<{ part_number: number; sha256: string }> = [];
              for (const [k, part] of parts.entries()) {
                const res = await post('/v1/s3/multipart/part', { upload_id, part_number: k + 1, body_base64: part.toString('base64') });
                if (res?.status !== 200) break;
                sent.push({ part_number: k + 1, sha256: ((await res.json()) as { sha256: string }).sha256 });
              }
              if (sent.length !== parts.length) continue;
              const done = await post('/v1/s3/multipart/complete', { upload_id, parts: sent });
              const whole = Buffer.concat(parts);
              if (done?.status === 200) acks.push({ kind: 'multipart', bucket: 'uploads', key: `m-${i}.bin`, sha256: sha(whole), size: whole.length });
              else await done?.arrayBuffer();
            }
          },
          async () => {
            for (let i = 0; !stop; i++) {
              const key = `ck_${sha(Buffer.from(`crash cache ${SEED} ${i}`))}`;
              const text = `cached answer ${i}`;
              const res = await post('/v1/cache/store', { tenant: 'crash', key, value: { text }, verification: { type: 'non_empty_text' }, ttl_seconds: 86_400 });
              if (res?.status === 200) acks.push({ kind: 'cache', key, text });
              else await res?.arrayBuffer();
            }
          },
          async () => {
            for (let i = 0; !stop; i++) {
              const data = bytes(512 + Math.floor(rand() * 60_000), 3, i);
              const res = await post('/v1/work-units/execute', { tenant: 'crash', kind: 'byte_object', logical_ref: `s3://executed/e-${i}`, payload: { _svc_encoding: 'base64', data: data.toString('base64') } });
              if (res?.status === 200) {
                const body = (await res.json()) as { manifest_id: string };
                acks.push({ kind: 'execute', bucket: '', key: body.manifest_id, sha256: sha(data), size: data.length });
              } else await res?.arrayBuffer();
            }
          },
        ];
        const running = writers.map((w) => w());
        for (let k = 0; k < KILLS; k++) {
          await new Promise((r) => setTimeout(r, 150 + Math.floor(rand() * 600)));
          await svc.kill('SIGKILL');
          await svc.start(); // no repair step: a plain restart
        }
        await new Promise((r) => setTimeout(r, 300));
        stop = true;
        await Promise.all(running);
        t.diagnostic(`${KILLS} kills, ${attempts} requests, ${acks.length} acknowledged writes (${acks.filter((a) => a.kind === 'object').length} puts, ${acks.filter((a) => a.kind === 'multipart').length} multipart, ${acks.filter((a) => a.kind === 'cache').length} cache stores, ${acks.filter((a) => a.kind === 'execute').length} executions)`);
        assert.ok(acks.filter((a) => a.kind !== 'cache').length >= 20, 'enough acknowledged writes to mean something');
        assert.ok(acks.some((a) => a.kind === 'multipart'), 'multipart uploads were acknowledged');

        // One more crash, then verify on a fresh start.
        await svc.kill('SIGKILL');
        await svc.start();
        const call = (method: string, route: string, body?: unknown) =>
          fetch(`${svc.url}${route}`, { method, headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        for (const ack of acks) {
          if (ack.kind === 'cache') {
            const hit = (await (await call('POST', '/v1/cache/exact/lookup', { tenant: 'crash', key: ack.key })).json()) as { hit: boolean; value?: { text: string } };
            assert.deepEqual([hit.hit, hit.value?.text], [true, ack.text], `cache ${ack.key}`);
            continue;
          }
          const res = ack.kind === 'execute' ? await call('POST', `/v1/manifests/${ack.key}/rehydrate`, {}) : await call('POST', '/v1/s3/objects/get', { tenant: 'crash', bucket: ack.bucket, key: ack.key });
          const body = new Uint8Array(await res.arrayBuffer());
          assert.equal(res.status, 200, `${ack.kind} ${ack.key}: ${Buffer.from(body).toString().slice(0, 200)}`);
          assert.equal(sha(body), ack.sha256, `${ack.kind} ${ack.key} is bit-exact`);
        }
        const { result: restore } = (await (await call('POST', '/v1/admin/restore-tests', { kind: 'critical_full', tenant: 'crash', prefixes: ['s3://'] })).json()) as { result: { status: string; checked: number } };
        assert.equal(restore.status, 'passed', JSON.stringify(restore).slice(0, 600));
        assert.ok(restore.checked >= acks.filter((a) => a.kind !== 'cache').length, `restored ${restore.checked} manifests`);
        await svc.kill('SIGTERM');
        const verify = spawnSync(process.execPath, [path.join(REPO, 'bin/svc.mjs'), 'ledger', 'verify', '--offline', '--json'], { env: { ...process.env, ...env, SVC_DATABASE_URL: env.SVC_DATABASE_URL ?? '' }, encoding: 'utf8' });
        assert.equal(verify.status, 0, verify.stdout + verify.stderr);
        t.diagnostic(`ledger: ${JSON.parse(verify.stdout).checked} events verify; ${restore.checked} manifests restored bit-exact`);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- svc output (tail) ---\n${svc.output().slice(-1500)}`);
      } finally {
        stop = true;
        await svc.kill('SIGKILL');
        await s3?.close();
        await target.cleanup();
      }
    });
  });
}
