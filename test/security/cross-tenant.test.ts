/**
 * Adversarial suite: cross-tenant access (issue 15).
 *
 * A victim tenant (globex) creates one of everything a tenant can own —
 * objects, a multipart upload, exact and semantic cache entries, work units,
 * manifests, plans, an approval, a scheduler job, AI chat records — and every
 * identifier any of those responses exposes (body or X-SVC-* header) is
 * collected. Tenant-bound keys of another tenant (acme) then try, seeded and
 * reproducibly, to read, list, explore, export, rehydrate, release, revoke,
 * cancel, complete, look up, redeem, stream or store over the victim's data
 * with each identifier in every slot that takes one, over REST, the AI
 * gateway's `svc` extension and gRPC.
 *
 * Each attempt is paired with a decoy: the same request with a value of the
 * same shape that nobody holds. The two answers must be identical once
 * per-request noise (trace ids, fresh ids, timestamps, the probed value) is
 * normalised away — "not yours" and "does not exist" must be
 * indistinguishable. No answer may carry any of the victim's marker strings,
 * and afterwards the victim's data is unchanged.
 *
 * SVC_ADVERSARIAL_REQUESTS sets the request budget (default 10,000 on SQLite,
 * 2,000 on PostgreSQL, to bound CI time; `npm run soak` can raise it).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { engines } from '../helpers/engines.ts';
import { mulberry32 } from '../helpers/prng.ts';
import { KEYS } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import { type GrpcTestServer, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';

type Json = Record<string, any>;
type Req = { method: string; route: string; body?: unknown; headers?: Record<string, string> };

const SEED = Number(process.env.SVC_ADVERSARIAL_SEED ?? 1515);
const MARKERS = Array.from({ length: 6 }, (_, i) => `VICTIM-SECRET-${i}-${SEED}`) as [string, string, string, string, string, string];
const ATTACKERS = [KEYS.acmeWriter, KEYS.acmeReader];
const ULID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const ID_PATTERN = /\b[a-z]{2,4}_[0-9a-z]{26}\b/g;
const HEX_PATTERN = /\b[0-9a-f]{32}(?:[0-9a-f]{32})?\b/g;
const TIMESTAMP_PATTERN = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

function providersJson(url: string): string {
  return JSON.stringify([{ name: 'mock', base_url: url, api_key_env: 'MOCK_UPSTREAM_KEY', models: [{ id: 'mock-small', size_class: 'small', capabilities: ['chat', 'completions'] }] }]);
}

/** A value of the same shape as `value` that nobody holds. */
function decoyOf(value: string, rand: () => number): string {
  const prefixed = /^([a-z]{2,4}_)([0-9a-z]{26})$/.exec(value);
  if (prefixed) return prefixed[1] + Array.from({ length: 26 }, (_, i) => (i === 0 ? '0' : ULID_ALPHABET[Math.floor(rand() * 32)])).join('');
  if (/^ck_[0-9a-f]{64}$/.test(value)) return `ck_${randomHex(64, rand)}`;
  if (/^[0-9a-f]+$/.test(value)) return randomHex(value.length, rand);
  return `${value.replace(/[^a-z0-9.-]/g, '').slice(0, 20) || 'x'}-${randomHex(8, rand)}`;
}

function randomHex(length: number, rand: () => number): string {
  return Array.from({ length }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
}

/** Status, X-SVC headers and body with per-request noise and the probed value removed. */
function normalise(status: number, headers: Headers, text: string, probed: string): string {
  // Generic shapes first: a probed identifier that also appears elsewhere (the default bundle id, say) normalises like any id.
  const clean = (s: string) => s.replace(ID_PATTERN, '<id>').replace(HEX_PATTERN, '<hex>').replace(TIMESTAMP_PATTERN, '<ts>').split(probed).join('<probed>');
  const svcHeaders = [...headers].filter(([k]) => k.startsWith('x-svc-') && k !== 'x-svc-trace-id').map(([k, v]) => `${k}: ${clean(v)}`).sort();
  return JSON.stringify({ status, headers: svcHeaders, body: clean(text) });
}

/** Every identifier-shaped string in a response: body values and X-SVC-* headers. */
function collectIdentifiers(into: Set<string>, text: string, headers?: Headers): void {
  for (const m of text.matchAll(ID_PATTERN)) into.add(m[0]);
  for (const m of text.matchAll(/\bck_[0-9a-f]{64}\b/g)) into.add(m[0]);
  if (headers) for (const [k, v] of headers) if (k.startsWith('x-svc-')) for (const m of v.matchAll(new RegExp(`${ID_PATTERN.source}|\\b[0-9a-f]{32}\\b`, 'g'))) into.add(m[0]);
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

for (const engine of engines()) {
  const budget = Number(process.env.SVC_ADVERSARIAL_REQUESTS ?? (engine.name === 'sqlite' ? 10_000 : 2_000));

  describe(`cross-tenant adversarial suite (${engine.name}, ${budget} requests, seed ${SEED})`, { skip: engine.skip }, () => {
    let h: GrpcTestServer;
    let mock: MockOpenAI;
    const ids = new Set<string>();
    const victim: Json = {};
    let requests = 0;
    const leaks: string[] = [];
    const mismatches: string[] = [];

    async function send(key: string, r: Req): Promise<{ status: number; headers: Headers; text: string }> {
      requests += 1;
      const res = await h.http.call(r.method, r.route, { key, ...(r.body !== undefined ? { body: r.body } : {}), ...(r.headers ? { headers: r.headers } : {}) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    }

    async function victimCall(r: Req, expect: number): Promise<Json> {
      const res = await h.http.call(r.method, r.route, { key: KEYS.globexWriter, ...(r.body !== undefined ? { body: r.body } : {}), ...(r.headers ? { headers: r.headers } : {}) });
      const text = await res.text();
      assert.equal(res.status, expect, `${r.method} ${r.route}: ${text}`);
      collectIdentifiers(ids, text, res.headers);
      return text ? (JSON.parse(text) as Json) : {};
    }

    function checkLeak(label: string, text: string, headers: Headers): void {
      const all = text + [...headers].map(([k, v]) => `${k}:${v}`).join('\n');
      for (const m of MARKERS) if (all.includes(m)) leaks.push(`${label}: response carries ${m}`);
    }

    /** One attempt and its decoy; records any difference. */
    async function attempt(label: string, key: string, value: string, build: (v: string) => Req, rand: () => number): Promise<void> {
      const decoy = decoyOf(value, rand);
      const real = await send(key, build(value));
      const fake = await send(key, build(decoy));
      checkLeak(label, real.text, real.headers);
      const a = normalise(real.status, real.headers, real.text, value);
      const b = normalise(fake.status, fake.headers, fake.text, decoy);
      if (a !== b) mismatches.push(`${label} [${value}]\n  theirs: ${a}\n  nobody: ${b}`);
    }

    before(async () => {
      mock = await startMockOpenAI({ models: ['mock-small'] });
      h = await startGrpcTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providersJson(mock.url), MOCK_UPSTREAM_KEY: 'sk-upstream-test' } });

      // The victim's data, each piece carrying a marker string.
      victim.object = await victimCall({ method: 'POST', route: '/v1/s3/objects', body: { bucket: 'vault', key: 'secret.txt', body_text: MARKERS[0] } }, 201);
      await victimCall({ method: 'POST', route: '/v1/s3/objects', body: { bucket: 'vault', key: 'deep/nested/plan.txt', body_base64: b64(MARKERS[1]) } }, 201);
      victim.upload = await victimCall({ method: 'POST', route: '/v1/s3/multipart/create', body: { bucket: 'uploads', key: 'big.bin' } }, 201);
      victim.part = await victimCall({ method: 'POST', route: '/v1/s3/multipart/part', body: { upload_id: victim.upload.upload_id, part_number: 1, body_text: MARKERS[2] } }, 200);
      victim.cacheKey = `ck_${randomBytes(32).toString('hex')}`;
      await victimCall({ method: 'POST', route: '/v1/cache/store', body: { key: victim.cacheKey, value: { text: MARKERS[3] }, verification: { type: 'non_empty_text' }, ttl_seconds: 3600 } }, 200);
      victim.semanticQuery = { domain: 'faq', query: 'How long is the refund window for annual plans?', source_fingerprints: ['doc:refunds@v3'], policy_id: 'pb_faq' };
      await victimCall({ method: 'POST', route: '/v1/cache/semantic/store', body: { ...victim.semanticQuery, value: { text: MARKERS[4] }, verification: { type: 'non_empty_text' } } }, 200);
      victim.workUnit = await victimCall({ method: 'POST', route: '/v1/work-units', body: { kind: 'byte_object', logical_ref: 's3://vault/wu.bin', payload: { _svc_encoding: 'base64', data: b64(MARKERS[5]) } } }, 201);
      await victimCall({ method: 'POST', route: `/v1/work-units/${victim.workUnit.id ?? victim.workUnit.work_unit_id}/plan`, body: {} }, 200);
      victim.job = await victimCall({ method: 'POST', route: '/v1/scheduler/jobs', body: { deadline: new Date(Date.now() + 12 * 3_600_000).toISOString(), duration_seconds: 3600, energy_kwh: 10, zone: 'DE' } }, 201);
      const approverForGlobex = { 'X-SVC-Tenant': 'globex' };
      const approval = await h.http.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'globex', contract: 'semantic', ttl_seconds: 3600, reason: 'victim approval' }, headers: approverForGlobex });
      const approvalText = await approval.text();
      assert.equal(approval.status, 201, approvalText);
      collectIdentifiers(ids, approvalText, approval.headers);
      victim.approval = JSON.parse(approvalText) as Json;
      const chat = await h.http.call('POST', '/v1/chat/completions', { key: KEYS.globexWriter, body: { model: 'mock-small', messages: [{ role: 'user', content: 'What is our internal revenue forecast?' }] }, headers: { 'X-SVC-Metadata': 'true' } });
      const chatText = await chat.text();
      assert.equal(chat.status, 200, chatText);
      collectIdentifiers(ids, chatText, chat.headers);
      // Lists expose their own identifiers and continuation cursors.
      for (const route of ['/v1/manifests?limit=2', '/v1/work-units?limit=2', '/v1/plans', '/v1/approvals', '/v1/scheduler/jobs', '/v1/manifests/explore']) await victimCall({ method: 'GET', route }, 200);
      victim.cursor = ((await victimCall({ method: 'GET', route: '/v1/manifests?limit=1' }, 200)) as Json).next_cursor;
      victim.continuation = ((await victimCall({ method: 'GET', route: '/v1/work-units?limit=1' }, 200)) as Json).next_continuation_token;
      victim.objectToken = ((await victimCall({ method: 'POST', route: '/v1/s3/objects/list', body: { bucket: 'vault', max_keys: 1 } }, 200)) as Json).next_continuation_token;
      assert.equal(typeof victim.objectToken, 'string', 'the victim has an object listing token to steal');
      assert.equal(typeof victim.cursor, 'string', 'the victim has a manifest cursor to steal');
      assert.equal(typeof victim.continuation, 'string', 'the victim has a continuation token to steal');
      assert.ok(ids.size >= 15, `the victim exposed ${ids.size} identifiers`);
    });
    after(async () => {
      await h?.close();
      await mock?.close();
    });

    test('no identifier the victim ever saw reveals anything to another tenant (REST)', { timeout: 900_000 }, async (t) => {
      const rand = mulberry32(SEED);
      const idSlots: Array<[string, (v: string) => Req]> = [
        ['get work unit', (v) => ({ method: 'GET', route: `/v1/work-units/${v}` })],
        ['plan work unit', (v) => ({ method: 'POST', route: `/v1/work-units/${v}/plan`, body: {} })],
        ['execute work unit', (v) => ({ method: 'POST', route: `/v1/work-units/${v}/execute`, body: {} })],
        ['get plan', (v) => ({ method: 'GET', route: `/v1/plans/${v}` })],
        ['get manifest', (v) => ({ method: 'GET', route: `/v1/manifests/${v}` })],
        ['rehydrate manifest', (v) => ({ method: 'POST', route: `/v1/manifests/${v}/rehydrate`, body: {} })],
        ['release manifest', (v) => ({ method: 'POST', route: `/v1/manifests/${v}/release`, body: {} })],
        ['get approval', (v) => ({ method: 'GET', route: `/v1/approvals/${v}` })],
        ['revoke approval', (v) => ({ method: 'POST', route: `/v1/approvals/${v}/revoke`, body: {} })],
        ['redeem for work unit', (v) => ({ method: 'POST', route: '/v1/approvals/redeem', body: { contract: 'semantic', work_unit_id: v } })],
        ['get job', (v) => ({ method: 'GET', route: `/v1/scheduler/jobs/${v}` })],
        ['cancel job', (v) => ({ method: 'POST', route: `/v1/scheduler/jobs/${v}/cancel`, body: {} })],
        ['complete job', (v) => ({ method: 'POST', route: `/v1/scheduler/jobs/${v}/complete`, body: { outcome: 'succeeded' } })],
        ['upload part', (v) => ({ method: 'POST', route: '/v1/s3/multipart/part', body: { upload_id: v, part_number: 2, body_text: 'attacker part' } })],
        ['complete upload', (v) => ({ method: 'POST', route: '/v1/s3/multipart/complete', body: { upload_id: v, parts: [{ part_number: 1, sha256: victim.part.sha256 }] } })],
        ['abort upload', (v) => ({ method: 'POST', route: '/v1/s3/multipart/abort', body: { upload_id: v } })],
        ['exact lookup', (v) => ({ method: 'POST', route: '/v1/cache/exact/lookup', body: { key: v } })],
        ['manifests by logical ref', (v) => ({ method: 'GET', route: `/v1/manifests?logical_ref=${encodeURIComponent(v)}` })],
        ['schedule a job for a work unit', (v) => ({ method: 'POST', route: '/v1/scheduler/plan', body: { work_unit_id: v, deadline: new Date(Date.now() + 3_600_000).toISOString(), duration_seconds: 60, energy_kwh: 1, zone: 'DE' } })],
        ['legal hold release', (v) => ({ method: 'POST', route: `/v1/admin/legal-holds/${v}/release`, body: {} })],
        ['benchmark run', (v) => ({ method: 'GET', route: `/v1/benchmarks/runs/${v}` })],
        ['approval header', (v) => ({ method: 'POST', route: '/v1/approvals/redeem', body: { contract: 'semantic' }, headers: { 'X-SVC-Approval': v } })],
      ];
      const objectSlots: Array<[string, (v: string) => Req]> = [
        ['object get', (v) => ({ method: 'POST', route: '/v1/s3/objects/get', body: { bucket: 'vault', key: v } })],
        ['object head', (v) => ({ method: 'POST', route: '/v1/s3/objects/head', body: { bucket: 'vault', key: v } })],
        ['object range', (v) => ({ method: 'POST', route: '/v1/s3/objects/range', body: { bucket: 'vault', key: v, start: 0, end: 3 } })],
        ['object delete', (v) => ({ method: 'POST', route: '/v1/s3/objects/delete', body: { bucket: 'vault', key: v } })],
        ['object list by prefix', (v) => ({ method: 'POST', route: '/v1/s3/objects/list', body: { bucket: 'vault', prefix: v } })],
      ];
      const tenantSlots: Array<[string, (v: string) => Req]> = [
        ['list manifests', (v) => ({ method: 'GET', route: `/v1/manifests?tenant=${v}` })],
        ['explore', (v) => ({ method: 'GET', route: `/v1/manifests/explore?tenant=${v}` })],
        ['export', (v) => ({ method: 'POST', route: '/v1/manifests/export', body: { tenant: v } })],
        ['list work units', (v) => ({ method: 'GET', route: `/v1/work-units?tenant=${v}` })],
        ['list plans', (v) => ({ method: 'GET', route: `/v1/plans?tenant=${v}` })],
        ['list approvals', (v) => ({ method: 'GET', route: `/v1/approvals?tenant=${v}` })],
        ['list jobs', (v) => ({ method: 'GET', route: `/v1/scheduler/jobs?tenant=${v}` })],
        ['ledger query', (v) => ({ method: 'POST', route: '/v1/ledger/query', body: { tenant: v } })],
        ['logs query', (v) => ({ method: 'POST', route: '/v1/logs/query', body: { tenant: v } })],
        ['dashboard', (v) => ({ method: 'GET', route: `/v1/reports/dashboard?tenant=${v}` })],
        ['recommendations', (v) => ({ method: 'GET', route: `/v1/reports/recommendations?tenant=${v}` })],
        ['object get as tenant', (v) => ({ method: 'POST', route: '/v1/s3/objects/get', body: { tenant: v, bucket: 'vault', key: 'secret.txt' } })],
        ['exact lookup as tenant', (v) => ({ method: 'POST', route: '/v1/cache/exact/lookup', body: { tenant: v, key: victim.cacheKey } })],
        ['semantic lookup as tenant', (v) => ({ method: 'POST', route: '/v1/cache/semantic/lookup', body: { ...victim.semanticQuery, freshness: { max_age_seconds: 3600 }, tenant: v } })],
        ['tenant header', (v) => ({ method: 'GET', route: '/v1/manifests', headers: { 'X-SVC-Tenant': v } })],
        ['chat svc.tenant', (v) => ({ method: 'POST', route: '/v1/chat/completions', body: { model: 'mock-small', messages: [{ role: 'user', content: 'What is our internal revenue forecast?' }], svc: { tenant: v } } })],
      ];
      const cursorSlots: Array<[string, (v: string) => Req]> = [
        ['manifest cursor', (v) => ({ method: 'GET', route: `/v1/manifests?cursor=${encodeURIComponent(v)}` })],
        ['work-unit continuation', (v) => ({ method: 'GET', route: `/v1/work-units?continuation_token=${encodeURIComponent(v)}` })],
        ['object list continuation', (v) => ({ method: 'POST', route: '/v1/s3/objects/list', body: { bucket: 'vault', continuation_token: v } })],
      ];
      const identifiers = [...ids];
      const objectKeys = ['secret.txt', 'deep/nested/plan.txt', 'deep/', 'sec'];
      const cursors = [victim.cursor, victim.continuation, victim.objectToken].filter((c): c is string => typeof c === 'string');
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

      // Every slot with every identifier once, then seeded random attempts up to the budget.
      for (const [label, build] of idSlots) for (const v of identifiers) await attempt(label, pick(ATTACKERS), v, build, rand);
      for (const [label, build] of objectSlots) for (const v of objectKeys) await attempt(label, pick(ATTACKERS), v, build, rand);
      for (const [label, build] of tenantSlots) await attempt(label, pick(ATTACKERS), 'globex', build, rand);
      for (const [label, build] of cursorSlots) for (const v of cursors) await attempt(label, pick(ATTACKERS), v, build, rand);
      while (requests < budget) {
        const family = rand();
        const [slots, values] = family < 0.7 ? [idSlots, identifiers] : family < 0.85 ? [objectSlots, objectKeys] : [tenantSlots, ['globex']];
        const [label, build] = pick(slots);
        await attempt(label, pick(ATTACKERS), pick(values), build, rand);
      }

      t.diagnostic(`${requests} requests, ${ids.size} victim identifiers, ${mismatches.length} differences, ${leaks.length} leaks`);
      assert.deepEqual(leaks, [], 'a victim marker reached another tenant');
      assert.equal(mismatches.length, 0, `"not yours" differed from "does not exist" in ${mismatches.length} attempts:\n${mismatches.slice(0, 8).join('\n')}`);
      assert.ok(requests >= budget, `${requests} requests sent`);
    });

    test('gRPC answers "not yours" exactly as "does not exist"', async () => {
      const rand = mulberry32(SEED + 2);
      const calls: Array<[string, grpc.Client, string, (v: string) => object]> = [
        ['WorkUnitService/Get', h.clients.workUnits, 'Get', (v) => ({ work_unit_id: v })],
        ['PlanService/Get', h.clients.plans, 'Get', (v) => ({ plan_id: v })],
        ['ManifestService/Get', h.clients.manifests, 'Get', (v) => ({ manifest_id: v })],
        ['SchedulerService/GetJob', h.clients.scheduler, 'GetJob', (v) => ({ job_id: v })],
        ['ApprovalService/Get', h.clients.approvals, 'Get', (v) => ({ approval_id: v })],
        ['CacheService/ExactLookup', h.clients.cache, 'ExactLookup', (v) => ({ key: v })],
      ];
      let grpcAttempts = 0;
      const outcome = async (client: grpc.Client, method: string, request: object, probed: string): Promise<string> => {
        grpcAttempts += 1;
        try {
          const { response } = await unary<object, object>(client, method, request, withKey(KEYS.acmeWriter));
          const text = JSON.stringify(response);
          for (const m of MARKERS) assert.ok(!text.includes(m), `${method} leaked ${m}`);
          return normalise(0, new Headers(), text, probed);
        } catch (err) {
          const e = err as grpc.ServiceError;
          return normalise(e.code, new Headers(), String(e.details), probed);
        }
      };
      for (const [label, client, method, build] of calls) {
        for (const v of ids) {
          const decoy = decoyOf(v, rand);
          const real = await outcome(client, method, build(v), v);
          const fake = await outcome(client, method, build(decoy), decoy);
          assert.equal(real, fake, `${label} with ${v}`);
        }
      }
      assert.ok(grpcAttempts >= calls.length * ids.size * 2);
    });

    test('storing over the victim\'s names lands in the attacker\'s own namespace and leaves the victim\'s data as it was', async () => {
      const rand = mulberry32(SEED + 1);
      await attempt('object put over', KEYS.acmeWriter, 'secret.txt', (v) => ({ method: 'POST', route: '/v1/s3/objects', body: { bucket: 'vault', key: v, body_text: `attacker bytes ${randomBytes(8).toString('hex')}` } }), rand);
      // Confirmation-of-file: the victim's exact bytes stored by another tenant dedupe against nothing of the victim's.
      const confirm = await send(KEYS.acmeWriter, { method: 'POST', route: '/v1/s3/objects', body: { bucket: 'probe', key: 'guess.txt', body_text: MARKERS[0] } });
      assert.equal(confirm.status, 201, confirm.text);
      assert.deepEqual([(JSON.parse(confirm.text) as Json).details.chunks_reused, (JSON.parse(confirm.text) as Json).details.bytes_deduplicated], [0, 0], 'dedupe is scoped to the tenant');
      await attempt('cache store over', KEYS.acmeWriter, victim.cacheKey, (v) => ({ method: 'POST', route: '/v1/cache/store', body: { key: v, value: { text: 'attacker value' }, verification: { type: 'non_empty_text' }, ttl_seconds: 60 } }), rand);
      await attempt('multipart over', KEYS.acmeWriter, 'big.bin', (v) => ({ method: 'POST', route: '/v1/s3/multipart/create', body: { bucket: 'uploads', key: v } }), rand);
      const sem = await send(KEYS.acmeWriter, { method: 'POST', route: '/v1/cache/semantic/lookup', body: { ...victim.semanticQuery, freshness: { max_age_seconds: 3600 } } });
      checkLeak('semantic lookup', sem.text, sem.headers);
      assert.equal(sem.status, 200, sem.text);
      assert.equal((JSON.parse(sem.text) as Json).hit, false);
      const chat = await send(KEYS.acmeWriter, { method: 'POST', route: '/v1/chat/completions', body: { model: 'mock-small', messages: [{ role: 'user', content: 'What is our internal revenue forecast?' }], svc: { cache_domain: 'faq', source_fingerprints: ['doc:refunds@v3'] } }, headers: { 'X-SVC-Metadata': 'true' } });
      assert.equal(chat.status, 200, chat.text);
      assert.equal((JSON.parse(chat.text) as Json).svc.cache, 'miss', 'the victim\'s identical chat is not a hit for another tenant');
      assert.deepEqual(leaks, []);
      assert.deepEqual(mismatches, []);

      // The victim's data is unchanged.
      const object = await h.http.call('POST', '/v1/s3/objects/get', { key: KEYS.globexWriter, body: { bucket: 'vault', key: 'secret.txt' } });
      assert.equal(Buffer.from(await object.arrayBuffer()).toString(), MARKERS[0]);
      const cached = (await (await h.http.call('POST', '/v1/cache/exact/lookup', { key: KEYS.globexWriter, body: { key: victim.cacheKey } })).json()) as Json;
      assert.deepEqual(cached.value, { text: MARKERS[3] });
      const job = (await (await h.http.call('GET', `/v1/scheduler/jobs/${victim.job.job.id}`, { key: KEYS.globexWriter })).json()) as Json;
      // The scheduler may have started it by now (its greenest window can begin at once, depending on the hour the
      // suite runs); what must not have happened is the attacker's cancel or complete.
      assert.ok(['scheduled', 'running'].includes(job.job.state), `victim's job is ${job.job.state}`);
      const approval = (await (await h.http.call('GET', `/v1/approvals/${victim.approval.id ?? victim.approval.approval_id}`, { key: KEYS.approver, headers: { 'X-SVC-Tenant': 'globex' } })).json()) as Json;
      assert.notEqual((approval.approval ?? approval).status, 'revoked');
      const done = await h.http.call('POST', '/v1/s3/multipart/complete', { key: KEYS.globexWriter, body: { upload_id: victim.upload.upload_id, parts: [{ part_number: 1, sha256: victim.part.sha256 }] } });
      assert.equal(done.status, 200, await done.clone().text());
      const upload = await h.http.call('POST', '/v1/s3/objects/get', { key: KEYS.globexWriter, body: { bucket: 'uploads', key: 'big.bin' } });
      assert.equal(Buffer.from(await upload.arrayBuffer()).toString(), MARKERS[2], 'no attacker part was added to the victim\'s upload');
    });
  });
}
