/**
 * REST ↔ gRPC parity, through a real HTTP server and a real gRPC server on
 * the same app:
 *
 * 1. Coverage: every operation in the served /openapi.json has an entry in
 *    PARITY (test/grpc/parity-table.ts) — a gRPC method or an exception with
 *    its reason — and every named method is served (a call without a
 *    credential reaches svc's frame and is UNAUTHENTICATED, not UNIMPLEMENTED;
 *    health answers without one). Entries for operations that no longer exist fail too.
 * 2. Same request, same result: a table of pairs, each sent once through REST
 *    and once through gRPC; the answers (or the spec's error bodies) must be
 *    equal once per-call values (ids, times, tokens) are masked.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import { loadSvcPackage, LOADER_OPTIONS, SVC_PROTO_FILE } from '../../src/svc/grpc/proto-package.ts';
import { fromStruct, toStruct } from '../../src/svc/grpc/mapping/struct.ts';
import { errorBodyOf } from '../../src/svc/grpc/status-error.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS } from '../helpers/server.ts';
import { PARITY } from './parity-table.ts';
import { type GrpcTestServer, startGrpcTestServer, withKey } from './support/grpc-test-server.ts';

type Any = Record<string, any>;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Every method definition the server can serve, by `package.Service/Method`. */
function methodDefinitions(): Map<string, protoLoader.MethodDefinition<object, object>> {
  const defs = { ...protoLoader.loadSync(SVC_PROTO_FILE, LOADER_OPTIONS), ...protoLoader.loadSync(healthProtoPath, { keepCase: true }) };
  const out = new Map<string, protoLoader.MethodDefinition<object, object>>();
  for (const [name, d] of Object.entries(defs)) {
    if ('format' in d) continue;
    for (const [method, m] of Object.entries(d as protoLoader.ServiceDefinition)) out.set(`${name}/${method}`, m);
  }
  return out;
}

/** Calls any method with an empty request; resolves with the final status code. */
function probe(client: grpc.Client, def: protoLoader.MethodDefinition<object, object>, metadata: grpc.Metadata): Promise<number> {
  return new Promise((resolve) => {
    const done = (err: grpc.ServiceError | null) => resolve(err ? err.code : grpc.status.OK);
    const { path, requestSerialize: ser, responseDeserialize: de } = def;
    if (def.requestStream && !def.responseStream) {
      const call = client.makeClientStreamRequest(path, ser, de, metadata, {}, (err) => done(err));
      call.end();
    } else if (def.responseStream) {
      const call = def.requestStream ? client.makeBidiStreamRequest(path, ser, de, metadata) : client.makeServerStreamRequest(path, ser, de, {}, metadata);
      call.on('data', () => {});
      call.on('error', (err: grpc.ServiceError) => resolve(err.code));
      call.on('end', () => resolve(grpc.status.OK));
      call.on('status', (s: grpc.StatusObject) => resolve(s.code));
      if (def.requestStream) (call as grpc.ClientDuplexStream<object, object>).end();
    } else {
      client.makeUnaryRequest(path, ser, de, {}, metadata, (err) => done(err));
    }
  });
}

// ── the "same result" comparison ───────────────────────────────────────────

const ID = /^[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** Values that differ per call by design (who asked when), masked before comparing. */
const PER_CALL = new Set(['run_id', 'token', 'trace_id', 'created', 'id', 'jti', 'duration_ms', 'age_seconds', 'signature', 'system_fingerprint', 'exported_at', 'evaluated_at', 'computed_at', 'generated_at']);

function mask(value: unknown, key?: string): unknown {
  if (key !== undefined && PER_CALL.has(key)) return '<per-call>';
  if (typeof value === 'string') return ID.test(value) ? '<id>' : TIME.test(value) ? '<time>' : value;
  if (Array.isArray(value)) return value.map((v) => mask(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
  return value;
}

interface Outcome {
  ok: boolean;
  body: unknown;
}

function grpcUnary(client: grpc.Client, method: string, request: Any, key: string): Promise<{ ok: true; response: Any } | { ok: false; body: unknown; code: number }> {
  return new Promise((resolve) => {
    (client as Any)[method](request, withKey(key), (err: grpc.ServiceError | null, response: Any) => {
      if (err) resolve({ ok: false, body: errorBodyOf(err.metadata), code: err.code });
      else resolve({ ok: true, response });
    });
  });
}

const asJson = (s: Any | undefined) => (s ? fromStruct(s) : undefined);

for (const engine of engines()) {
  describe(`REST ↔ gRPC parity on ${engine.name}`, { skip: engine.skip }, () => {
    let mock: MockOpenAI;
    let s: GrpcTestServer;
    let address: string;
    const rest = async (method: string, path: string, key: string, body?: unknown): Promise<Outcome & { status: number; text: string }> => {
      const res = await s.http.call(method, path, { key, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* SSE or text */
      }
      return { ok: res.status < 400, body: parsed, status: res.status, text };
    };
    const g = async (service: keyof GrpcTestServer['clients'], method: string, request: Any, key: string, pick: (r: Any) => unknown): Promise<Outcome> => {
      const r = await grpcUnary(s.clients[service], method, request, key);
      return r.ok ? { ok: true, body: pick(r.response) } : { ok: false, body: r.body };
    };
    const same = (a: Outcome, b: Outcome, label: string) => {
      assert.equal(b.ok, a.ok, `${label}: REST ${a.ok ? 'succeeded' : 'failed'} (${JSON.stringify(a.body).slice(0, 300)}), gRPC ${b.ok ? 'succeeded' : 'failed'} (${JSON.stringify(b.body).slice(0, 300)})`);
      assert.deepEqual(mask(b.body), mask(a.body), label);
    };

    before(async () => {
      mock = await startMockOpenAI();
      const providers = JSON.stringify([
        {
          name: 'mock',
          base_url: mock.url,
          api_key_env: 'MOCK_UPSTREAM_KEY',
          models: [
            { id: 'mock-small', size_class: 'small', capabilities: ['chat', 'completions'] },
            { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] },
          ],
        },
      ]);
      s = await startGrpcTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providers, MOCK_UPSTREAM_KEY: 'sk-upstream-test' } });
      address = `127.0.0.1:${s.grpc.port}`;
    });
    after(async () => {
      await s?.close();
      await mock?.close();
    });

    test('every served OpenAPI operation has a gRPC counterpart or a documented exception, and every named method is served', async () => {
      const doc = (await (await fetch(`${s.http.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const served = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
      const missing = served.filter((op) => !(op in PARITY));
      assert.deepEqual(missing, [], `operations with neither a gRPC method nor an exception in test/grpc/parity-table.ts: ${missing.join(', ')}`);
      const stale = Object.keys(PARITY).filter((op) => !served.includes(op));
      assert.deepEqual(stale, [], `parity entries for operations the server no longer serves: ${stale.join(', ')}`);
      for (const [, entry] of Object.entries(PARITY)) if ('exception' in entry) assert.ok(entry.exception.length > 40, 'an exception says why');

      const defs = methodDefinitions();
      const client = new grpc.Client(address, grpc.credentials.createInsecure());
      try {
        for (const [op, entry] of Object.entries(PARITY)) {
          if (!('grpc' in entry)) continue;
          const def = defs.get(entry.grpc);
          assert.ok(def, `${op}: ${entry.grpc} is not in the proto`);
          const code = await probe(client, def, new grpc.Metadata());
          const expected = entry.grpc.startsWith('grpc.health.') ? grpc.status.OK : grpc.status.UNAUTHENTICATED;
          assert.equal(code, expected, `${op}: ${entry.grpc} answered ${grpc.status[code]} without a credential`);
        }
      } finally {
        client.close();
      }
    });

    test('approvals: public key, issue, get, list, revoke, redeem without a token', async () => {
      same(await rest('GET', '/v1/approvals/public-key', KEYS.acmeReader), await g('approvals', 'GetPublicKey', {}, KEYS.acmeReader, (r) => ({ keys: r.keys.map(fromStruct) })), 'public key');
      const issue = { tenant: 'acme', contract: 'exact_bytes', ttl_seconds: 600, single_use: true, reason: 'parity' };
      const restIssued = await rest('POST', '/v1/approvals', KEYS.approver, issue);
      const grpcIssued = await g('approvals', 'Issue', issue, KEYS.approver, (r) => asJson(r.result));
      same(restIssued, grpcIssued, 'issue');
      const restId = (restIssued.body as Any).approval.approval_id ?? (restIssued.body as Any).approval.id;
      assert.match(String(restId), /^apr_/);
      same(await rest('GET', `/v1/approvals/${restId}`, KEYS.approver), await g('approvals', 'Get', { approval_id: restId }, KEYS.approver, (r) => ({ approval: asJson(r.approval) })), 'get');
      same(await rest('GET', '/v1/approvals/apr_nope', KEYS.approver), await g('approvals', 'Get', { approval_id: 'apr_nope' }, KEYS.approver, (r) => r), 'get malformed id');
      same(await rest('GET', '/v1/approvals?tenant=acme', KEYS.approver), await g('approvals', 'List', { tenant: 'acme' }, KEYS.approver, (r) => ({ approvals: (r.approvals ?? []).map(fromStruct) })), 'list');
      const grpcId = ((grpcIssued.body as Any).approval.approval_id ?? (grpcIssued.body as Any).approval.id) as string;
      same(await rest('POST', `/v1/approvals/${restId}/revoke`, KEYS.approver), await g('approvals', 'Revoke', { approval_id: grpcId }, KEYS.approver, (r) => asJson(r.result)), 'revoke');
      same(await rest('POST', '/v1/approvals/redeem', KEYS.acmeWriter, { tenant: 'acme', contract: 'exact_bytes' }), await g('approvals', 'Redeem', { tenant: 'acme', contract: 'exact_bytes' }, KEYS.acmeWriter, (r) => asJson(r.result)), 'redeem without a token');
      // The token travels in metadata x-svc-approval, as in the REST header; single use holds across surfaces.
      const token = ((await rest('POST', '/v1/approvals', KEYS.approver, issue)).body as Any).token as string;
      assert.ok(token, 'the issued approval carries its token');
      const md = withKey(KEYS.acmeWriter, { 'x-svc-approval': token });
      const first: Any = await new Promise((resolve) => (s.clients.approvals as Any).Redeem({ tenant: 'acme', contract: 'exact_bytes' }, md, (err: grpc.ServiceError | null, res: Any) => resolve(err ?? res)));
      assert.ok(first.work_unit_id, `redeemed over gRPC: ${JSON.stringify(first.details ?? '')}`);
      const again = await s.http.call('POST', '/v1/approvals/redeem', { key: KEYS.acmeWriter, body: { tenant: 'acme', contract: 'exact_bytes' }, headers: { 'x-svc-approval': token } });
      assert.equal(again.status, 403, 'a single-use approval redeemed over gRPC is spent for REST too');
    });

    test('policy bundles: get, publish (refused, then unchanged), reload', async () => {
      same(await rest('GET', '/v1/policies/bundles/default', KEYS.acmeReader), await g('policy', 'GetBundle', { name: 'default' }, KEYS.acmeReader, (r) => ({ bundle: r.bundle, document: asJson(r.document) })), 'get bundle');
      same(await rest('GET', '/v1/policies/bundles/Bad!', KEYS.acmeReader), await g('policy', 'GetBundle', { name: 'Bad!' }, KEYS.acmeReader, (r) => r), 'bad bundle name');
      const document = 'name: default\nversion: "parity-1"\npolicies:\n  - id: pol_deny_gzip\n    effect: deny\n    match: { action: gzip }\n';
      same(await rest('POST', '/v1/policies/bundles/default/publish', KEYS.acmeWriter, { document }), await g('policy', 'PublishBundle', { name: 'default', document }, KEYS.acmeWriter, (r) => r), 'publish without the role');
      assert.equal((await rest('POST', '/v1/policies/bundles/default/publish', KEYS.publisher, { document })).status, 201);
      same(await rest('POST', '/v1/policies/bundles/default/publish', KEYS.publisher, { document }), await g('policy', 'PublishBundle', { name: 'default', document }, KEYS.publisher, (r) => asJson(r.result)), 'publish an unchanged bundle');
      same(await rest('POST', '/v1/policies/bundles/default/reload', KEYS.publisher), await g('policy', 'ReloadBundle', { name: 'default' }, KEYS.publisher, (r) => asJson(r.result)), 'reload');
    });

    test('semantic cache: store, lookup, clear', async () => {
      const scope = { tenant: 'acme', domain: 'parity-faq', source_fingerprints: ['doc-v1'], policy_id: 'pol_any' };
      const entry = { ...scope, query: 'How do I reset my password?', value: { text: 'Use the reset link.' }, verification: { type: 'non_empty_text' } };
      same(await rest('POST', '/v1/cache/semantic/store', KEYS.acmeWriter, entry), await g('cache', 'SemanticStore', { request: toStruct(entry) }, KEYS.acmeWriter, (r) => asJson(r.result)), 'store');
      const lookup = { ...scope, query: 'How do I reset my password?', freshness: { max_age_seconds: 3600 } };
      same(await rest('POST', '/v1/cache/semantic/lookup', KEYS.acmeWriter, lookup), await g('cache', 'SemanticLookup', { request: toStruct(lookup) }, KEYS.acmeWriter, (r) => asJson(r.result)), 'lookup');
      same(await rest('POST', '/v1/cache/semantic/lookup', KEYS.globexWriter, lookup), await g('cache', 'SemanticLookup', { request: toStruct(lookup) }, KEYS.globexWriter, (r) => asJson(r.result)), 'lookup naming another tenant');
      same(await rest('POST', '/v1/cache/semantic/clear', KEYS.acmeWriter, { tenant: 'acme', domain: 'nothing-here' }), await g('cache', 'SemanticClear', { tenant: 'acme', domain: 'nothing-here' }, KEYS.acmeWriter, (r) => asJson(r.result)), 'clear');
    });

    test('AI: completion, models, and the chat stream frame for frame', async () => {
      const completion = { model: 'mock-small', prompt: 'Say hello', svc: { cache: 'bypass' } };
      same(await rest('POST', '/v1/completions', KEYS.acmeWriter, completion), await g('ai', 'Completion', { request: toStruct(completion) }, KEYS.acmeWriter, (r) => asJson(r.response)), 'completion');
      same(await rest('GET', '/v1/models', KEYS.acmeWriter), await g('ai', 'ListModels', {}, KEYS.acmeWriter, (r) => asJson(r.result)), 'models');

      const chat = { model: 'mock-small', messages: [{ role: 'user', content: 'Stream a short answer' }], stream: true, svc: { cache: 'bypass', stream_mode: 'buffered' } };
      const sse = await rest('POST', '/v1/chat/completions', KEYS.acmeWriter, chat);
      assert.equal(sse.status, 200, sse.text);
      const restFrames = sse.text
        .split('\n\n')
        .filter((f) => f.startsWith('data: '))
        .map((f) => f.slice(6))
        .map((d) => (d === '[DONE]' ? { done: true } : { chunk: JSON.parse(d) }));
      const grpcFrames: Any[] = await new Promise((resolve, reject) => {
        const out: Any[] = [];
        const call = (s.clients.ai as Any).StreamChatCompletion({ request: toStruct(chat) }, withKey(KEYS.acmeWriter));
        call.on('data', (m: Any) => out.push(m));
        call.on('error', reject);
        call.on('end', () => resolve(out));
      });
      assert.ok(grpcFrames[0]?.svc?.work_unit_id, 'the stream starts with the svc metadata');
      const frames = grpcFrames.slice(1).filter((m) => m.comment === undefined).map((m) => (m.done ? { done: true } : { chunk: fromStruct(m.chunk) }));
      assert.deepEqual(mask(frames), mask(restFrames), 'the same frames in the same order');
      assert.deepEqual(frames.at(-1), { done: true }, 'done last');
    });

    test('multipart upload: create, part (client streaming), complete, abort; the object reads back bit-exact', async () => {
      const data = Buffer.alloc(300_000);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
      const create = { tenant: 'acme', bucket: 'parity-bucket', key: 'mp/object.bin' };
      const rc = await rest('POST', '/v1/s3/multipart/create', KEYS.acmeWriter, create);
      const gc = await g('objects', 'CreateMultipartUpload', create, KEYS.acmeWriter, (r) => r);
      same(rc, gc, 'create');
      const restUpload = (rc.body as Any).upload_id;
      const grpcUpload = (gc.body as Any).upload_id;
      const rp = await rest('POST', '/v1/s3/multipart/part', KEYS.acmeWriter, { upload_id: restUpload, part_number: 1, body_base64: data.toString('base64') });
      const gp: Any = await new Promise((resolve, reject) => {
        const call = (s.clients.objects as Any).UploadPart(withKey(KEYS.acmeWriter), (err: Error | null, res: Any) => (err ? reject(err) : resolve(res)));
        call.write({ part: { upload_id: grpcUpload, part_number: 1 } });
        for (let o = 0; o < data.length; o += 65_536) call.write({ data: data.subarray(o, o + 65_536) });
        call.end();
      });
      same(rp, { ok: true, body: gp }, 'part');
      assert.equal(gp.sha256, sha256(data));
      const parts = [{ part_number: 1, sha256: sha256(data) }];
      // The object's identity and content; storage figures differ by design (the second upload dedupes against the first).
      const rcomp = await rest('POST', '/v1/s3/multipart/complete', KEYS.acmeWriter, { upload_id: restUpload, parts });
      const gcomp = await g('objects', 'CompleteMultipartUpload', { upload_id: grpcUpload, parts }, KEYS.acmeWriter, (r) => r);
      const rb = rcomp.body as Any;
      const gb = gcomp.body as Any;
      same({ ok: rcomp.ok, body: [rb.bucket, rb.key, rb.size, rb.etag, rb.part_count, rb.accepted, rb.output?.sha256, rb.details?.bytes_in] }, { ok: gcomp.ok, body: [gb.bucket, gb.key, gb.size, gb.etag, gb.part_count, gb.result?.accepted, gb.result?.output?.sha256, gb.result?.details?.bytes_in] }, 'complete');
      const read = await rest('POST', '/v1/s3/objects/head', KEYS.acmeWriter, create);
      assert.equal((read.body as Any).sha256, sha256(data));
      const ra = await rest('POST', '/v1/s3/multipart/create', KEYS.acmeWriter, create);
      const ga = await rest('POST', '/v1/s3/multipart/create', KEYS.acmeWriter, create);
      same(await rest('POST', '/v1/s3/multipart/abort', KEYS.acmeWriter, { upload_id: (ra.body as Any).upload_id }), await g('objects', 'AbortMultipartUpload', { upload_id: (ga.body as Any).upload_id }, KEYS.acmeWriter, (r) => r), 'abort');
      same(await rest('POST', '/v1/s3/multipart/abort', KEYS.globexWriter, { upload_id: restUpload }), await g('objects', 'AbortMultipartUpload', { upload_id: restUpload }, KEYS.globexWriter, (r) => r), "another tenant's upload");
    });

    test('manifests: export (server stream), import (client stream), release of an active manifest', async () => {
      const put = await rest('POST', '/v1/s3/objects', KEYS.acmeWriter, { tenant: 'acme', bucket: 'parity-bucket', key: 'exported.txt', body_text: 'export me' });
      assert.equal(put.status, 201, put.text);
      const request = { tenant: 'acme', include_chunks: true, include_ledger: false };
      const restExport = await rest('POST', '/v1/manifests/export', ADMIN(), request);
      const pieces: Buffer[] = await new Promise((resolve, reject) => {
        const out: Buffer[] = [];
        const call = (s.clients.manifests as Any).Export(request, withKey(ADMIN()));
        call.on('data', (m: Any) => out.push(m.data));
        call.on('error', reject);
        call.on('end', () => resolve(out));
      });
      const grpcExport = JSON.parse(Buffer.concat(pieces).toString('utf8'));
      same(restExport, { ok: true, body: grpcExport }, 'export');
      const restImport = await rest('POST', '/v1/manifests/import', ADMIN(), restExport.body);
      const grpcImport: Any = await new Promise((resolve, reject) => {
        const call = (s.clients.manifests as Any).Import(withKey(ADMIN()), (err: Error | null, res: Any) => (err ? reject(err) : resolve(res)));
        const bytes = Buffer.from(JSON.stringify(restExport.body));
        for (let o = 0; o < bytes.length; o += 1000) call.write({ data: bytes.subarray(o, o + 1000) });
        call.end();
      });
      same(restImport, { ok: true, body: fromStruct(grpcImport.result) }, 'import (everything already there)');
      const manifestId = (put.body as Any).manifest_id;
      same(await rest('POST', `/v1/manifests/${manifestId}/release`, KEYS.operator), await g('manifests', 'Release', { manifest_id: manifestId }, KEYS.operator, (r) => asJson(r.result)), 'release of a manifest that is not quarantined');
    });

    test('admin: switch change, legal holds, platforms, restore test refused, alerts', async () => {
      const change = { switch: 'force_exact_contract', enabled: false };
      same(await rest('POST', '/v1/admin/switches', ADMIN(), change), await g('admin', 'ChangeSwitch', change, ADMIN(), (r) => asJson(r.result)), 'switch change');
      same(await rest('POST', '/v1/admin/switches', KEYS.acmeWriter, change), await g('admin', 'ChangeSwitch', change, KEYS.acmeWriter, (r) => r), 'switch change without the permission');
      const hold = { tenant: 'acme', scope: 'prefix', target: 'parity-bucket/held/', reason: 'case 42' };
      same(await rest('POST', '/v1/admin/legal-holds', KEYS.publisher, hold), await g('admin', 'PlaceLegalHold', hold, KEYS.publisher, (r) => asJson(r.result)), 'place a hold');
      same(await rest('GET', '/v1/admin/legal-holds?tenant=acme', KEYS.publisher), await g('admin', 'ListLegalHolds', { tenant: 'acme' }, KEYS.publisher, (r) => asJson(r.result)), 'list holds');
      same(await rest('POST', '/v1/admin/legal-holds/lh_nope/release', KEYS.publisher), await g('admin', 'ReleaseLegalHold', { legal_hold_id: 'lh_nope' }, KEYS.publisher, (r) => r), 'release an unknown hold');
      same(await rest('GET', '/v1/platforms', KEYS.acmeReader), await g('admin', 'ListPlatforms', {}, KEYS.acmeReader, (r) => asJson(r.result)), 'platforms');
      same(await rest('GET', '/v1/platforms/matrix', KEYS.acmeReader), await g('admin', 'PlatformMatrix', {}, KEYS.acmeReader, (r) => asJson(r.result)), 'platform matrix');
      same(await rest('POST', '/v1/admin/restore-tests', KEYS.acmeWriter, { kind: 'nope' }), await g('admin', 'RunRestoreTest', { request: toStruct({ kind: 'nope' }) }, KEYS.acmeWriter, (r) => r), 'restore test refused');
      same(await rest('POST', '/v1/admin/gc', ADMIN(), { dry_run: true }), await g('admin', 'RunGc', { dry_run: true }, ADMIN(), (r) => asJson(r.result)), 'gc dry run');
      same(await rest('POST', '/v1/admin/gc', KEYS.operator, { dry_run: true }), await g('admin', 'RunGc', { dry_run: true }, KEYS.operator, (r) => r), 'gc refused to an operator');
      same(await rest('POST', '/v1/admin/chunks/migrate', ADMIN(), { dry_run: true }), await g('admin', 'MigrateChunks', { dry_run: true }, ADMIN(), (r) => asJson(r.result)), 'chunk migration dry run');
      same(await rest('POST', '/v1/admin/chunks/migrate', KEYS.acmeWriter, { dry_run: true }), await g('admin', 'MigrateChunks', { dry_run: true }, KEYS.acmeWriter, (r) => r), 'chunk migration refused to a tenant writer');
    });

    test('observability, scheduler and benchmarks: logs refused across tenants, reports for a closed window, forecasts, suites, runs', async () => {
      same(await rest('POST', '/v1/logs/query', KEYS.acmeReader, { tenant: 'globex' }), await g('observability', 'QueryLogs', { tenant: 'globex' }, KEYS.acmeReader, (r) => r), 'logs of another tenant');
      const window = 'tenant=acme&from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z';
      const w = { tenant: 'acme', from: '2020-01-01T00:00:00Z', to: '2020-02-01T00:00:00Z' };
      same(await rest('GET', `/v1/reports/dashboard?${window}`, KEYS.acmeReader), await g('observability', 'DashboardReport', w, KEYS.acmeReader, (r) => asJson(r.result)), 'dashboard');
      same(await rest('GET', `/v1/reports/recommendations?${window}`, KEYS.acmeReader), await g('observability', 'Recommendations', w, KEYS.acmeReader, (r) => asJson(r.result)), 'recommendations');
      same(await rest('POST', '/v1/scheduler/forecasts/reload', KEYS.operator), await g('scheduler', 'ReloadForecasts', {}, KEYS.operator, (r) => asJson(r.result)), 'forecast reload');
      same(await rest('POST', '/v1/scheduler/forecasts/pull', KEYS.operator), await g('scheduler', 'PullForecasts', {}, KEYS.operator, (r) => asJson(r.result)), 'forecast pull');
      // Points that ended long ago: neither surface stores them, both say how many were skipped.
      const stale = { source: 'parity', points: [{ zone: 'IS', start: '2020-01-01T00:00:00Z', end: '2020-01-01T01:00:00Z', gco2_per_kwh: 28 }] };
      const restLoad = await rest('POST', '/v1/scheduler/forecasts', ADMIN(), stale);
      assert.deepEqual([restLoad.status, (restLoad.body as Any).skipped], [200, 1], restLoad.text);
      same(restLoad, await g('scheduler', 'LoadForecast', stale, ADMIN(), (r) => r), 'forecast load');
      same(await rest('GET', '/v1/benchmarks', KEYS.acmeReader), await g('benchmarks', 'ListSuites', {}, KEYS.acmeReader, (r) => asJson(r.result)), 'benchmark suites');
      same(await rest('GET', '/v1/benchmarks/runs', KEYS.acmeReader), await g('benchmarks', 'ListRuns', {}, KEYS.acmeReader, (r) => asJson(r.result)), 'benchmark runs');
      same(await rest('GET', '/v1/benchmarks/runs/bm_nope', KEYS.acmeReader), await g('benchmarks', 'GetRun', { run_id: 'bm_nope' }, KEYS.acmeReader, (r) => r), 'malformed run id');
    });
  });
}

function ADMIN(): string {
  return 'test-admin-key-0123456789abcdef';
}
