/**
 * Memory under load (issue 12): 16 clients put small objects (0.2–3 KiB,
 * `POST /v1/s3/objects`) into a real `svc serve` process, and its resident
 * memory, read from its own `/metrics`, must not grow past a bound once
 * warmed up. Before the fix every put allocated a 1 MiB SharedArrayBuffer
 * window that the hash workers kept alive: these 2,000 puts grew RSS by
 * 318 MB (338 → 656 MB), and 6,000 by 1.1 GB. After it, +68 MB (V8 heap
 * warm-up); docs/chunking.md "Memory".
 *
 * SVC_MEMORY_PUTS and SVC_MEMORY_BOUND_MB override the defaults.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { mulberry32 } from '../helpers/prng.ts';
import { ADMIN_KEY } from '../helpers/server.ts';
import { svcProcess } from '../helpers/svc-process.ts';

const PUTS = Number(process.env.SVC_MEMORY_PUTS ?? 2_000);
const WARM_UP = 300;
const CLIENTS = 16;
const BOUND_MB = Number(process.env.SVC_MEMORY_BOUND_MB ?? 150);

async function residentMb(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
  const m = /^\w*resident_memory_bytes (\d+)/m.exec(text);
  return m ? Number(m[1]) / (1024 * 1024) : undefined;
}

test(`RSS grows by at most ${BOUND_MB} MB over ${PUTS} small puts from ${CLIENTS} clients`, { timeout: 180_000 }, async (t) => {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'svc-memory-'));
  const svc = await svcProcess({ SVC_STATE_DIR: stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_LOG_LEVEL: 'warn' });
  try {
    await svc.start();
    if ((await residentMb(svc.url)) === undefined) return t.skip('this platform does not report resident memory');
    const rand = mulberry32(12);
    let issued = 0;
    const putUntil = async (total: number) => {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (issued < total) {
            const n = issued++;
            const body = Buffer.alloc(200 + Math.floor(rand() * 2900));
            for (let k = 0; k < body.length; k++) body[k] = rand() < 0.5 ? Math.floor(rand() * 256) : 97 + (k % 7);
            const res = await fetch(`${svc.url}/v1/s3/objects`, {
              method: 'POST',
              headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
              body: JSON.stringify({ tenant: 'mem', bucket: 'mem', key: `o${n}`, body_base64: body.toString('base64') }),
            });
            assert.equal(res.status, 201, await res.text());
          }
        }),
      );
    };
    await putUntil(WARM_UP);
    const before = (await residentMb(svc.url))!;
    const started = performance.now();
    await putUntil(WARM_UP + PUTS);
    const after = (await residentMb(svc.url))!;
    t.diagnostic(`RSS ${before.toFixed(0)} MB after ${WARM_UP} warm-up puts → ${after.toFixed(0)} MB after ${PUTS} more (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    assert.ok(after - before <= BOUND_MB, `RSS grew by ${(after - before).toFixed(0)} MB over ${PUTS} puts (bound ${BOUND_MB} MB): ${before.toFixed(0)} → ${after.toFixed(0)} MB`);
  } finally {
    await svc.kill('SIGTERM');
    rmSync(stateDir, { recursive: true, force: true });
  }
});
