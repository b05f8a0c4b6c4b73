/**
 * Several processes, one truth (issue 15): two real `svc serve` processes on
 * one PostgreSQL database and one S3-compatible store (s3rver), behind a
 * round-robin client that moves on to the other process when one does not
 * answer (as a load balancer does). Object puts, multipart uploads whose
 * parts go to different processes, exact and semantic cache stores looked up
 * on the other process, approvals issued on one and redeemed on the other,
 * and the ledger's SSE stream followed on both — while one process or the
 * other is killed with SIGKILL and restarted without any repair step.
 *
 * Afterwards: every acknowledged object reads back bit-exact from either
 * process, the one ledger chain verifies with `svc ledger verify --offline`,
 * and each SSE follower (reconnecting with Last-Event-ID) saw every event id.
 *
 * CI runs a bounded version; SVC_SCALEOUT_OPS and SVC_SCALEOUT_KILLS raise it
 * (the issue's long run: 10,000 operations, 10 kills).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { PG_URL, engineTarget } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';
import { ADMIN_KEY, API_KEYS_JSON, KEYS } from '../helpers/server.ts';
import { type SvcProcess, svcProcess } from '../helpers/svc-process.ts';
import { startS3TestServer } from '../chunk-store/s3-test-server.ts';
import { REPO } from '../attr/service/run-bin.ts';

const OPS = Number(process.env.SVC_SCALEOUT_OPS ?? 600);
const KILLS = Number(process.env.SVC_SCALEOUT_KILLS ?? 3);
const SEED = Number(process.env.SVC_SCALEOUT_SEED ?? 4242);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe(`two svc processes on one PostgreSQL and one S3 store (${OPS} operations, ${KILLS} kills)`, { skip: PG_URL ? false : 'needs SVC_TEST_DATABASE_URL' }, () => {
  test('nothing acknowledged is lost, one chain, no SSE event missing on either process', { timeout: 900_000 }, async (t) => {
    const target = await engineTarget('postgres');
    const s3 = await startS3TestServer('svc-scaleout');
    const databaseUrl = `${target.databaseUrl}${target.databaseUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${target.pgSchema}`)}`;
    const dirs = [mkdtempSync(path.join(os.tmpdir(), 'svc-a-')), mkdtempSync(path.join(os.tmpdir(), 'svc-b-'))];
    const env = (stateDir: string) => ({ SVC_STATE_DIR: stateDir, SVC_DATABASE_URL: databaseUrl, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_API_KEYS_JSON: API_KEYS_JSON, ...s3.svcEnv('chunks') });
    const procs: SvcProcess[] = [];
    const rand = mulberry32(SEED);
    const followers: Array<{ seqs: Set<number>; stop: () => void; done: Promise<void> }> = [];
    try {
      procs.push(await svcProcess(env(dirs[0]!)));
      await procs[0]!.start();
      // Every process signs approvals with the same key: distribute it like any other secret (docs/deployment.md).
      cpSync(path.join(dirs[0]!, 'keys'), path.join(dirs[1]!, 'keys'), { recursive: true });
      procs.push(await svcProcess(env(dirs[1]!)));
      await procs[1]!.start();

      // SSE followers, one per process, reconnecting after Last-Event-ID like any SSE client.
      for (const proc of procs) {
        const seqs = new Set<number>();
        const controller = new AbortController();
        const done = (async () => {
          let last = 0;
          while (!controller.signal.aborted) {
            try {
              const res = await fetch(`${proc.url}/v1/ledger/stream`, { headers: { 'x-api-key': ADMIN_KEY, 'last-event-id': String(last) }, signal: controller.signal });
              const reader = res.body!.getReader();
              let buffer = '';
              for (;;) {
                const { value, done: end } = await reader.read();
                if (end) break;
                buffer += new TextDecoder().decode(value);
                for (const m of buffer.matchAll(/^id: (\d+)$/gm)) {
                  seqs.add(Number(m[1]));
                  last = Math.max(last, Number(m[1]));
                }
                buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
              }
            } catch {
              await new Promise((r) => setTimeout(r, 100));
            }
          }
        })();
        followers.push({ seqs, stop: () => controller.abort(), done });
      }

      let turn = 0;
      /** Round robin; a process that does not answer is skipped, as a load balancer does. */
      const call = async (method: string, route: string, body?: unknown, o: { key?: string; headers?: Record<string, string>; on?: number } = {}): Promise<{ status: number; json: any; buf: Uint8Array; proc: number } | undefined> => {
        // Chosen once: a retry goes to the other process, as a load balancer skips one that does not answer.
        const i = o.on ?? turn++ % procs.length;
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            const res = await fetch(`${procs[(i + attempt) % procs.length]!.url}${route}`, {
              method,
              headers: { 'x-api-key': o.key ?? ADMIN_KEY, 'content-type': 'application/json', ...o.headers },
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            });
            const buf = new Uint8Array(await res.arrayBuffer());
            let json: any;
            try {
              json = JSON.parse(Buffer.from(buf).toString());
            } catch {
              json = undefined;
            }
            return { status: res.status, json, buf, proc: (i + attempt) % procs.length };
          } catch {
            if (o.on !== undefined) return undefined;
          }
        }
        return undefined;
      };

      const objects: Array<{ bucket: string; key: string; sha256: string }> = [];
      const counts = { put: 0, multipart: 0, exact: 0, semantic: 0, approval: 0 };
      const op = async (n: number) => {
        const kind = n % 5;
        if (kind === 0) {
          const data = Buffer.from(Array.from({ length: 1000 + Math.floor(rand() * 40_000) }, (_, k) => (k * 31 + n) % 251));
          const r = await call('POST', '/v1/s3/objects', { tenant: 'acme', bucket: 'shared', key: `o-${n}`, body_base64: data.toString('base64') });
          if (r?.status === 201) {
            objects.push({ bucket: 'shared', key: `o-${n}`, sha256: sha(data) });
            counts.put++;
          }
        } else if (kind === 1) {
          const create = await call('POST', '/v1/s3/multipart/create', { tenant: 'acme', bucket: 'multi', key: `m-${n}` });
          if (create?.status !== 201) return;
          const part = Buffer.from(`part of upload ${n} `.repeat(500));
          // The part goes to the other process than the create, the completion back to the first.
          const p = await call('POST', '/v1/s3/multipart/part', { upload_id: create.json.upload_id, part_number: 1, body_base64: part.toString('base64') }, { on: (create.proc + 1) % 2 });
          if (p?.status !== 200) return;
          const done = await call('POST', '/v1/s3/multipart/complete', { upload_id: create.json.upload_id, parts: [{ part_number: 1, sha256: p.json.sha256 }] }, { on: create.proc });
          if (done?.status === 200) {
            objects.push({ bucket: 'multi', key: `m-${n}`, sha256: sha(part) });
            counts.multipart++;
          }
        } else if (kind === 2) {
          const key = `ck_${sha(Buffer.from(`scaleout ${SEED} ${n}`))}`;
          const stored = await call('POST', '/v1/cache/store', { key, value: { text: `answer ${n}` }, verification: { type: 'non_empty_text' }, ttl_seconds: 3600 }, { key: KEYS.acmeWriter });
          if (stored?.status !== 200) return;
          const hit = await call('POST', '/v1/cache/exact/lookup', { key }, { key: KEYS.acmeWriter, on: (stored.proc + 1) % 2 });
          if (hit) assert.deepEqual([hit.json.hit, hit.json.value?.text], [true, `answer ${n}`], `exact entry stored on one process is a hit on the other (${n})`);
          counts.exact++;
        } else if (kind === 3) {
          const query = { domain: 'faq', query: `What is the retention period for dataset number ${n}?`, source_fingerprints: [`doc:ds-${n}@v1`], policy_id: 'pb_faq' };
          const stored = await call('POST', '/v1/cache/semantic/store', { ...query, value: { text: `retention ${n}` }, verification: { type: 'non_empty_text' } }, { key: KEYS.acmeWriter });
          if (stored?.status !== 200) return;
          const hit = await call('POST', '/v1/cache/semantic/lookup', { ...query, freshness: { max_age_seconds: 3600 } }, { key: KEYS.acmeWriter, on: (stored.proc + 1) % 2 });
          if (hit) assert.deepEqual([hit.json.hit, hit.json.value?.text], [true, `retention ${n}`], `semantic entry stored on one process is a hit on the other (${n})`);
          counts.semantic++;
        } else {
          const issued = await call('POST', '/v1/approvals', { tenant: 'acme', contract: 'semantic', ttl_seconds: 600, reason: `scaleout ${n}` }, { key: KEYS.approver });
          if (issued?.status !== 201) return;
          const redeemed = await call('POST', '/v1/approvals/redeem', { contract: 'semantic' }, { key: KEYS.acmeWriter, headers: { 'X-SVC-Approval': issued.json.token }, on: (issued.proc + 1) % 2 });
          if (redeemed) assert.equal(redeemed.status, 200, `an approval issued on one process redeems on the other: ${JSON.stringify(redeemed.json)}`);
          counts.approval++;
        }
      };

      // Policy and switches changed on one process are in force on the other within the sync interval.
      const until = async (what: string, probe: () => Promise<boolean>): Promise<number> => {
        const started = Date.now();
        while (!(await probe())) {
          if (Date.now() - started > 15_000) throw new Error(`${what}: not seen on the other process within 15 s`);
          await new Promise((r) => setTimeout(r, 25));
        }
        return Date.now() - started;
      };
      const document = 'name: default\nversion: "scaleout-1"\npolicies:\n  - id: pol_deny_gzip\n    effect: deny\n    match: { action: gzip }\n';
      const published = await call('POST', '/v1/policies/bundles/default/publish', { document }, { key: KEYS.publisher, on: 0 });
      assert.equal(published?.status, 201, JSON.stringify(published?.json));
      const bundleId = published!.json.bundle.id as string;
      const evaluate = { action: 'gzip', contract: 'exact_bytes', work_unit_kind: 'byte_object', mode: 'enforce', tenant: 'acme' };
      const publishMs = await until('the published bundle', async () => (await call('POST', '/v1/policies/evaluate', evaluate, { on: 1 }))?.json?.decision?.bundle?.id === bundleId);
      const switched = await call('POST', '/v1/admin/switches', { switch: 'bypass_optimisation', enabled: true }, { on: 1 });
      assert.equal(switched?.status, 200, JSON.stringify(switched?.json));
      const planBody = { tenant: 'acme', kind: 'byte_object', logical_ref: 's3://b/switch', payload: { _svc_encoding: 'base64', data: Buffer.from('switch test').toString('base64') } };
      const switchMs = await until('the bypass switch', async () => (await call('POST', '/v1/work-units/plan', planBody, { on: 0 }))?.json?.mode === 'observe');
      assert.equal((await call('POST', '/v1/admin/switches', { switch: 'bypass_optimisation', enabled: false }, { on: 0 }))?.status, 200);
      await until('the bypass switch turned off', async () => (await call('POST', '/v1/work-units/plan', planBody, { on: 1 }))?.json?.mode === 'enforce');
      t.diagnostic(`a bundle published on process A was in force on B after ${publishMs} ms; a switch flipped on B applied on A after ${switchMs} ms (sync interval 1,000 ms)`);

      let next = 0;
      const workers = Array.from({ length: 8 }, async () => {
        while (next < OPS) await op(next++);
      });
      const killer = (async () => {
        for (let k = 0; k < KILLS; k++) {
          await new Promise((r) => setTimeout(r, 500 + Math.floor(rand() * 1500)));
          const victim = procs[Math.floor(rand() * procs.length)]!;
          await victim.kill('SIGKILL');
          await victim.start();
        }
      })();
      await Promise.all([...workers, killer]);
      t.diagnostic(`${OPS} operations: ${JSON.stringify(counts)}; ${KILLS} kills`);
      // Guards against a vacuous run (every write refused while processes restart); each acknowledged object is checked below.
      assert.ok(counts.put + counts.multipart >= OPS / 20, `enough objects acknowledged (${counts.put + counts.multipart})`);

      for (const o of objects) {
        for (const on of [0, 1]) {
          const r = await call('POST', '/v1/s3/objects/get', { tenant: 'acme', bucket: o.bucket, key: o.key }, { on });
          assert.equal(r?.status, 200, `${o.key} on process ${on}`);
          assert.equal(sha(r!.buf), o.sha256, `${o.key} bit-exact on process ${on}`);
        }
      }

      const head = (await call('POST', '/v1/ledger/query', { after_seq: 0, limit: 1 }))!;
      assert.equal(head.status, 200);
      const all: number[] = [];
      for (let after = 0; ; ) {
        const page = (await call('POST', '/v1/ledger/query', { after_seq: after, limit: 1000 }))!.json as { events: Array<{ seq: number }> };
        if (page.events.length === 0) break;
        for (const e of page.events) all.push(e.seq);
        after = page.events.at(-1)!.seq;
      }
      assert.deepEqual(all, Array.from({ length: all.length }, (_, i) => i + 1), 'one linear chain: seq 1..n without gaps');
      // Give the followers one poll interval to catch up, then compare by id.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && followers.some((f) => all.some((s) => !f.seqs.has(s)))) await new Promise((r) => setTimeout(r, 200));
      for (const [i, f] of followers.entries()) {
        const missing = all.filter((s) => !f.seqs.has(s));
        assert.deepEqual(missing.slice(0, 10), [], `SSE on process ${i} missed ${missing.length} of ${all.length} events`);
      }
      for (const f of followers) f.stop();
      await Promise.all(followers.map((f) => f.done));
      // The dashboard, from either process over one fixed window, matches a recomputation from the rows.
      const window = `from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&to=${encodeURIComponent(new Date().toISOString())}`;
      const reports = await Promise.all([0, 1].map(async (on) => (await call('GET', `/v1/reports/dashboard?${window}`, undefined, { on }))!.json));
      const figures = (r: any) => JSON.stringify(r.sections);
      assert.equal(figures(reports[0]), figures(reports[1]), 'both processes report the same figures');
      const db = new pg.Client({ connectionString: target.databaseUrl, options: `-c search_path=${target.pgSchema}` });
      await db.connect();
      try {
        const from = reports[0].window.from as string;
        const to = reports[0].window.to as string;
        const m = (await db.query('SELECT COUNT(*)::int AS n, COALESCE(SUM(bytes_in), 0)::bigint AS bytes_in, COALESCE(SUM(bytes_stored), 0)::bigint AS stored FROM manifests WHERE created_at >= $1 AND created_at < $2', [from, to])).rows[0];
        const events = (await db.query('SELECT COUNT(*)::int AS n FROM ledger_events WHERE ts >= $1 AND ts < $2 AND seq <= $3', [from, to, reports[0].ledger_head.seq])).rows[0];
        const sec = reports[0].sections;
        assert.equal(sec.platform.byte_manifests.value, m.n, 'byte manifests');
        assert.equal(sec.executive.savings.measured.baseline_bytes_in.value, Number(m.bytes_in), 'bytes in');
        assert.equal(sec.executive.savings.measured.physical_bytes_stored.value, Number(m.stored), 'bytes stored');
        assert.equal(sec.security.ledger_events.value, events.n, 'ledger events');
        assert.ok(m.n >= objects.length, `${m.n} manifests in the window`);
      } finally {
        await db.end();
      }

      // Both processes (each restarted at least once when KILLS ≥ 2) still run the published bundle.
      for (const on of [0, 1]) assert.equal((await call('POST', '/v1/policies/evaluate', evaluate, { on }))?.json?.decision?.bundle?.id, bundleId, `bundle on process ${on} after the run`);

      await Promise.all(procs.map((p) => p.kill('SIGTERM')));
      const verify = spawnSync(process.execPath, [path.join(REPO, 'bin/svc.mjs'), 'ledger', 'verify', '--offline', '--json'], { env: { ...process.env, ...env(dirs[0]!) }, encoding: 'utf8' });
      assert.equal(verify.status, 0, verify.stdout + verify.stderr);
      assert.equal(JSON.parse(verify.stdout).checked, all.length);
      t.diagnostic(`${objects.length} objects bit-exact on both processes; ${all.length} ledger events in one chain, all seen by both SSE followers`);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- process A ---\n${procs[0]?.output().slice(-1000)}\n--- process B ---\n${procs[1]?.output().slice(-1000)}`);
    } finally {
      for (const f of followers) f.stop();
      await Promise.all(procs.map((p) => p.kill('SIGKILL')));
      await s3.close();
      await target.cleanup();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
