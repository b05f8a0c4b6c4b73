/**
 * PolicyService, CacheService, AIService, ObjectGatewayService, AdminService
 * and ObservabilityService through a real gRPC client, on SQLite and
 * PostgreSQL. The AI calls run against the mock OpenAI-compatible upstream
 * (test/fixtures), and against an app with no provider at all.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import { fromStruct, toStruct, toValue } from '../../src/svc/grpc/mapping/struct.ts';
import { startGrpcServer } from '../../src/svc/grpc/server.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, readStream, startGrpcTestServer, unary, withKey } from './support/grpc-test-server.ts';

type Any = Record<string, any>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function providersJson(url: string): string {
  return JSON.stringify([
    {
      name: 'mock',
      base_url: url,
      api_key_env: 'MOCK_UPSTREAM_KEY',
      models: [
        { id: 'mock-small', size_class: 'small', capabilities: ['chat', 'completions'] },
        { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] },
      ],
      timeouts: { request_ms: 3000 },
    },
  ]);
}

const chatRequest = (content: string, extra: Record<string, unknown> = {}) => ({ request: toStruct({ model: 'mock-small', messages: [{ role: 'user', content }], ...extra }) });

for (const engine of engines()) {
  describe(`gRPC policy, cache, AI, objects and admin on ${engine.name}`, { skip: engine.skip }, () => {
    let mock: MockOpenAI;
    let s: GrpcTestServer;
    before(async () => {
      mock = await startMockOpenAI();
      s = await startGrpcTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providersJson(mock.url), MOCK_UPSTREAM_KEY: 'sk-upstream-test' } });
    });
    after(async () => {
      await s?.close();
      await mock?.close();
    });

    test('policy evaluate denies a semantic transform under exact_bytes and names the bundle', async () => {
      const request = { work_unit_kind: 'WORK_UNIT_KIND_BYTE_OBJECT', contract: 'CONTRACT_EXACT_BYTES', mode: 'MODE_ENFORCE', action: 'semantic_summary' };
      const { decision, bundle } = (await unary<Any, Any>(s.clients.policy, 'Evaluate', request, withKey(KEYS.acmeWriter))).response;
      assert.equal(decision.allow, false);
      assert.equal(decision.guarantee, 'exact_bytes_no_semantic');
      assert.match(decision.reasons[0], /semantic_summary.*exact_bytes/);
      assert.match(bundle.id, /^pb_/);
      assert.deepEqual(decision.bundle, bundle);
      const allowed = (await unary<Any, Any>(s.clients.policy, 'Evaluate', { ...request, action: 'zstd', attributes: { size_class: toValue('large') } }, withKey(KEYS.acmeWriter))).response;
      assert.equal(allowed.decision.allow, true);
    });

    test('policy evaluate without a mode is INVALID_ARGUMENT from the domain schema', async () => {
      const err = await grpcFailure(() => unary(s.clients.policy, 'Evaluate', { work_unit_kind: 'WORK_UNIT_KIND_BYTE_OBJECT', contract: 'CONTRACT_SEMANTIC', action: 'zstd' }, withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.match(errorBodyFrom(err).error.message, /mode/);
    });

    test('policy validate reports errors with line numbers; bundles are listed with the one in force', async () => {
      const invalid = (await unary<Any, Any>(s.clients.policy, 'Validate', { document: 'policies:\n  - id: pol_x\n    effect: block\n' }, withKey(KEYS.acmeReader))).response;
      assert.equal(invalid.valid, false);
      assert.ok(invalid.errors.length > 0 && invalid.errors.every((e: Any) => e.line >= 1));
      const { bundles } = (await unary<Any, Any>(s.clients.policy, 'ListBundles', {}, withKey(KEYS.acmeReader))).response;
      assert.ok(bundles.some((b: Any) => b.in_force && b.active?.id));
    });

    test('cache store runs the verifier; an exact lookup returns the value; another tenant misses, naming one is refused', async () => {
      const key = `ck_${sha256('grpc-cache-entry')}`;
      const value = { answer: 'forty-two', sources: [1, 2] };
      const stored = (
        await unary<Any, Any>(s.clients.cache, 'Store', { key, value: toValue(value), verification: toStruct({ type: 'json_shape', required_keys: ['answer'] }), ttl_seconds: 600 }, withKey(KEYS.acmeWriter))
      ).response;
      assert.deepEqual([stored.stored, stored.key, stored.tenant], [true, key, 'acme']);
      const hit = (await unary<Any, Any>(s.clients.cache, 'ExactLookup', { key }, withKey(KEYS.acmeReader))).response;
      assert.equal(hit.hit, true);
      assert.deepEqual(fromStruct(hit.value.structValue), value);
      const miss = (await unary<Any, Any>(s.clients.cache, 'ExactLookup', { key: `ck_${sha256('absent')}` }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual([miss.hit, miss.reason], [false, 'absent']);
      const other = (await unary<Any, Any>(s.clients.cache, 'ExactLookup', { key }, withKey(KEYS.globexWriter))).response;
      assert.deepEqual([other.hit, other.reason], [false, 'absent']);
      const cross = await grpcFailure(() => unary(s.clients.cache, 'ExactLookup', { key, tenant: 'acme' }, withKey(KEYS.globexWriter)));
      assert.equal(cross.code, grpc.status.PERMISSION_DENIED);
      assert.equal(errorBodyFrom(cross).error.code, 'cache_permission_denied');
    });

    test('a value failing its verifier is not stored', async () => {
      const key = `ck_${sha256('grpc-cache-bad')}`;
      const err = await grpcFailure(() => unary(s.clients.cache, 'Store', { key, value: toValue({ other: 1 }), verification: toStruct({ type: 'json_shape', required_keys: ['answer'] }) }, withKey(KEYS.acmeWriter)));
      assert.equal(errorBodyFrom(err).error.code, 'verifier_failed');
      const lookup = (await unary<Any, Any>(s.clients.cache, 'ExactLookup', { key }, withKey(KEYS.acmeReader))).response;
      assert.equal(lookup.hit, false);
    });

    test('a verification spec claiming verifier_passed is rejected by the request schema', async () => {
      const err = await grpcFailure(() =>
        unary(s.clients.cache, 'Store', { key: `ck_${sha256('claim')}`, value: toValue('x'), verification: toStruct({ type: 'non_empty_text', verifier_passed: true }) }, withKey(KEYS.acmeWriter)),
      );
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
    });

    test('AI chat completion answers through the gateway with typed svc metadata', async () => {
      const { response, svc } = (await unary<Any, Any>(s.clients.ai, 'ChatCompletion', chatRequest('What is a ledger?'), withKey(KEYS.acmeWriter))).response;
      const body = fromStruct(response) as Any;
      assert.match(body.choices[0].message.content, /mock-small answers/);
      assert.equal('svc' in body, false, 'the svc object stays out of the body unless the request has the extension');
      assert.match(svc.work_unit_id, /^wu_/);
      assert.match(svc.manifest_id, /^mf_/);
      assert.equal(svc.tenant, 'acme');
      assert.equal(svc.cache, 'miss');
      const manifest = (await unary<Any, Any>(s.clients.manifests, 'Get', { manifest_id: svc.manifest_id }, withKey(KEYS.acmeReader))).response.manifest;
      assert.equal(manifest.kind, 'WORK_UNIT_KIND_AI_CHAT_COMPLETION');
      assert.equal(manifest.work_unit_id, svc.work_unit_id);
    });

    test('an AI answer served from the semantic cache names its operating point in the svc metadata', async () => {
      const semantic = { svc: { contract: 'semantic', allow_semantic_cache: true } };
      const first = (await unary<Any, Any>(s.clients.ai, 'ChatCompletion', chatRequest('How do I rotate the signing key of the console?', semantic), withKey(KEYS.acmeWriter))).response;
      assert.equal(first.svc.semantic_operating_point, undefined, 'no semantic hit, no operating point');
      const { svc } = (await unary<Any, Any>(s.clients.ai, 'ChatCompletion', chatRequest('How can I rotate the signing key of the console?', semantic), withKey(KEYS.acmeWriter))).response;
      assert.equal(svc.cache, 'semantic_hit');
      assert.equal(svc.semantic_operating_point, 'default:0.925:lexical-align@6');
    });

    test('AI embeddings answer through the gateway', async () => {
      const { response, svc } = (await unary<Any, Any>(s.clients.ai, 'Embeddings', { request: toStruct({ model: 'mock-embed', input: ['a', 'b'] }) }, withKey(KEYS.acmeWriter))).response;
      const body = fromStruct(response) as Any;
      assert.equal(body.data.length, 2);
      assert.ok(Array.isArray(body.data[0].embedding));
      assert.match(svc.work_unit_id, /^wu_/);
    });

    test('a streaming AI request is INVALID_ARGUMENT and never reaches the provider', async () => {
      const calls = mock.calls.length;
      const err = await grpcFailure(() => unary(s.clients.ai, 'ChatCompletion', chatRequest('stream me', { stream: true }), withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(errorBodyFrom(err).error.details?.param, 'stream');
      assert.equal(mock.calls.length, calls);
    });

    test('a tenant-bound key overriding the tenant in the svc extension is PERMISSION_DENIED', async () => {
      const err = await grpcFailure(() => unary(s.clients.ai, 'ChatCompletion', chatRequest('hi', { svc: { tenant: 'globex' } }), withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.PERMISSION_DENIED);
      assert.equal(errorBodyFrom(err).error.code, 'tenant_forbidden');
    });

    test('object put, head, list, ranged get and delete (denied by default)', async () => {
      const text = 'object gateway over gRPC — bytes and text alike\n'.repeat(2000);
      const put = (await unary<Any, Any>(s.clients.objects, 'Put', { bucket: 'grpc-bucket', key: 'docs/a.txt', body_text: text, content_type: 'text/plain' }, withKey(KEYS.acmeWriter))).response;
      assert.equal(put.size, Buffer.byteLength(text));
      assert.equal(put.result.output.sha256, sha256(text));
      const bin = Buffer.from([0, 1, 2, 255, 254, 253]);
      await unary(s.clients.objects, 'Put', { bucket: 'grpc-bucket', key: 'docs/b.bin', body_base64: bin }, withKey(KEYS.acmeWriter));

      const head = (await unary<Any, Any>(s.clients.objects, 'Head', { bucket: 'grpc-bucket', key: 'docs/a.txt' }, withKey(KEYS.acmeReader))).response.object;
      assert.deepEqual([head.size, head.sha256, head.content_type, head.state], [Buffer.byteLength(text), sha256(text), 'text/plain', 'active']);
      const list = (await unary<Any, Any>(s.clients.objects, 'List', { bucket: 'grpc-bucket', prefix: 'docs/' }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual(list.objects.map((o: Any) => o.key), ['docs/a.txt', 'docs/b.bin']);

      const whole = await readStream<Any, Any>(s.clients.objects, 'Get', { bucket: 'grpc-bucket', key: 'docs/b.bin' }, withKey(KEYS.acmeReader));
      assert.equal(whole.error, undefined);
      assert.deepEqual(Buffer.concat(whole.messages.slice(1).map((m) => m.data)), bin);
      const ranged = await readStream<Any, Any>(s.clients.objects, 'Get', { bucket: 'grpc-bucket', key: 'docs/a.txt', range: { start: 7, end: 13 } }, withKey(KEYS.acmeReader));
      assert.equal(ranged.messages[0]?.info?.object?.key, 'docs/a.txt');
      assert.equal(ranged.messages[0]?.info?.stream?.content_length, 7);
      assert.equal(Buffer.concat(ranged.messages.slice(1).map((m) => m.data)).toString(), text.slice(7, 14));

      const del = await grpcFailure(() => unary(s.clients.objects, 'Delete', { tenant: 'acme', bucket: 'grpc-bucket', key: 'docs/a.txt' }, withKey()));
      assert.equal(del.code, grpc.status.PERMISSION_DENIED);
      assert.equal(errorBodyFrom(del).error.code, 'policy_denied');
    });

    test('an object put with both bodies is impossible; with neither it is INVALID_ARGUMENT', async () => {
      const err = await grpcFailure(() => unary(s.clients.objects, 'Put', { bucket: 'grpc-bucket', key: 'empty' }, withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
    });

    test('admin RunGc: a dry run by a deployment-wide admin reports and changes nothing, a real run is a ledger event, other roles and tenant-bound keys are refused', async () => {
      const put = await unary<Any, Any>(s.clients.objects, 'Put', { bucket: 'grpc-gc', key: 'a.bin', body_base64: Buffer.from('bytes kept by gc') }, withKey(KEYS.acmeWriter));
      assert.equal(put.response.size, 16);
      const dry = (await unary<Any, Any>(s.clients.admin, 'RunGc', { dry_run: true }, withKey(ADMIN_KEY))).response;
      const dryReport = fromStruct(dry.result).result as Any;
      assert.deepEqual([dryReport.dry_run, dryReport.run_id, dryReport.chunk_layout], [true, dry.run_id, 'packs']);
      assert.match(dry.run_id, /^gcr_[0-9a-f]{20}$/);
      const real = (await unary<Any, Any>(s.clients.admin, 'RunGc', {}, withKey(ADMIN_KEY))).response;
      const report = fromStruct(real.result).result as Any;
      assert.equal(report.dry_run, false, 'an absent dry_run is a real run');
      assert.ok(report.manifests.retained >= 1);
      for (const key of [KEYS.operator, KEYS.acmeWriter, KEYS.auditor]) {
        const denied = await grpcFailure(() => unary(s.clients.admin, 'RunGc', { dry_run: true }, withKey(key)));
        assert.equal(denied.code, grpc.status.PERMISSION_DENIED, key);
      }
      const unauthenticated = await grpcFailure(() => unary(s.clients.admin, 'RunGc', { dry_run: true }, withKey(null)));
      assert.equal(unauthenticated.code, grpc.status.UNAUTHENTICATED);
      const events = (await unary<Any, Any>(s.clients.ledger, 'Query', { event_types: ['storage.gc_completed'], limit: 10 }, withKey(KEYS.auditor))).response.events;
      assert.deepEqual(events.map((e: Any) => fromStruct(e.payload).run_id), [dry.run_id, real.run_id]);
    });

    test('admin readiness reports the checks, and metrics include gRPC calls by method and code', async () => {
      const ready = (await unary<Any, Any>(s.clients.admin, 'Readiness', {}, withKey(KEYS.operator))).response;
      assert.equal(ready.ready, true);
      assert.ok(ready.checks.some((c: Any) => c.name === 'storage' && c.ok));
      assert.ok('switches' in fromStruct(ready.rollout));
      const switches = (await unary<Any, Any>(s.clients.admin, 'GetSwitches', {}, withKey(KEYS.operator))).response;
      assert.equal(typeof fromStruct(switches.switches), 'object');
      const denied = await grpcFailure(() => unary(s.clients.admin, 'Readiness', {}, withKey(KEYS.acmeWriter)));
      assert.equal(denied.code, grpc.status.PERMISSION_DENIED);

      const metrics = (await unary<Any, Any>(s.clients.observability, 'Metrics', {}, withKey(KEYS.auditor))).response;
      assert.match(metrics.content_type, /text\/plain/);
      assert.match(metrics.text, /svc_grpc_requests_total\{method="AdminService\/Readiness",code="PERMISSION_DENIED"\} 1/);
      assert.match(metrics.text, /svc_work_units_total/);
    });
  });

  describe(`gRPC AI without a provider on ${engine.name}`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    test('ChatCompletion is model_route_failed with the gRPC status of the error table', async () => {
      const err = await grpcFailure(() => unary(s.clients.ai, 'ChatCompletion', chatRequest('anyone there?'), withKey(KEYS.acmeWriter)));
      const body = errorBodyFrom(err);
      assert.equal(body.error.code, 'model_route_failed');
      assert.equal(err.code, grpc.status.UNAVAILABLE);
      assert.match(body.error.message, /SVC_PROVIDERS_JSON/);
      assert.match(body.error.work_unit_id ?? '', /^wu_/);
    });

    test('a second server on a port in use fails to start with a message naming the setting', async () => {
      await assert.rejects(startGrpcServer(s.http.app, { host: '127.0.0.1', port: s.grpc.port }), /cannot listen for gRPC on 127\.0\.0\.1:\d+.*SVC_GRPC_PORT/);
    });
  });
}
