/**
 * Traces through the real HTTP server, exported over OTLP/HTTP to an
 * in-process receiver: one trace per request, an incoming `traceparent`
 * honoured, spans parented under the request's root (`svc.intake`), the
 * spec's 13 span names and attribute names, the trace id equal to
 * `X-SVC-Trace-ID` and to the ledger's and manifest's trace id, and no
 * prompt, payload, tenant name or object key in any span.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SPAN_NAMES } from '../../src/svc/observability/tracing.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

const PROMPT_MARKER = 'zebra-prompt-marker-7731';
const PAYLOAD_MARKER = 'payload-marker-4412';
const KEY_MARKER = 'secret-key-marker-9902';
const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';
const b64 = (s: string) => Buffer.from(s).toString('base64');

let receiver: OtlpReceiver;
let mock: MockOpenAI;
let s: TestServer;
const traces: Record<string, string> = {};

before(async () => {
  receiver = await startOtlpReceiver();
  mock = await startMockOpenAI();
  s = await startTestServer({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      SVC_PROVIDERS_JSON: JSON.stringify([{ name: 'mock', base_url: mock.url, models: [{ id: 'm-small', size_class: 'small' }, { id: 'emb-1', size_class: 'small', capabilities: ['embeddings'] }] }]),
    },
  });
  const call = async (name: string, method: string, route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await s.call(method, route, { key: KEYS.acmeWriter, body, headers });
    assert.ok(res.status < 300, `${name}: ${res.status} ${await res.clone().text()}`);
    await res.arrayBuffer();
    traces[name] = res.headers.get('x-svc-trace-id')!;
    return res;
  };
  await call('execute', 'POST', '/v1/work-units/execute', { kind: 'byte_object', logical_ref: `s3://bucket/${KEY_MARKER}`, payload: { _svc_encoding: 'base64', data: b64(`${PAYLOAD_MARKER} `.repeat(400)) } }, { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` });
  await call('put', 'POST', '/v1/s3/objects', { bucket: 'bucket', key: KEY_MARKER, body_text: `${PAYLOAD_MARKER} object body` });
  await call('get', 'POST', '/v1/s3/objects/get', { bucket: 'bucket', key: KEY_MARKER });
  // The raw byte routes carry the key, logical ref and metadata in the query string and the bytes as the body.
  const octets = { 'content-type': 'application/octet-stream' };
  await call('raw_put', 'PUT', `/v1/s3/objects?bucket=bucket&key=${KEY_MARKER}-raw`, `${PAYLOAD_MARKER} raw body`, octets);
  await call('raw_execute', 'POST', `/v1/work-units/execute/raw?logical_ref=${encodeURIComponent(`s3://bucket/${KEY_MARKER}-raw`)}&metadata=${encodeURIComponent(JSON.stringify({ note: PAYLOAD_MARKER }))}`, `${PAYLOAD_MARKER} raw execute`, octets);
  const chat = { model: 'm-small', messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: `${PROMPT_MARKER} what is a ledger?` }], svc: { contract: 'semantic', allow_semantic_cache: true, cache_domain: 'faq', source_fingerprints: ['doc:1@v1'] } };
  await call('chat', 'POST', '/v1/chat/completions', chat);
  await call('embeddings', 'POST', '/v1/embeddings', { model: 'emb-1', input: [`${PROMPT_MARKER} embed me`] });
  await call('exact_lookup', 'POST', '/v1/cache/exact/lookup', { key: `ck_${'a'.repeat(64)}` });
  await call('semantic_lookup', 'POST', '/v1/cache/semantic/lookup', { domain: 'faq', query: `${PROMPT_MARKER} refund window?`, source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', freshness: { max_age_seconds: 60 } });
  await call('scheduler', 'POST', '/v1/scheduler/jobs', { deadline: new Date(Date.now() + 6 * 3_600_000).toISOString(), duration_seconds: 600, zone: 'DE', energy_kwh: 1, metadata: { note: PAYLOAD_MARKER } });
  await s.app.tracing.flush();
});
after(async () => {
  await s?.close();
  await mock?.close();
  await receiver?.close();
});

const spansOf = (name: string): ReceivedSpan[] => receiver.spans().filter((x) => x.traceId === traces[name]);
const namesOf = (name: string) => new Set(spansOf(name).map((x) => x.name));

test('each request is one trace with one root, svc.intake, and every other span has its parent in the trace', () => {
  for (const [name, traceId] of Object.entries(traces)) {
    const spans = spansOf(name);
    assert.ok(spans.length > 0, `${name}: no span with trace id ${traceId}`);
    const ids = new Set(spans.map((x) => x.spanId));
    const roots = spans.filter((x) => x.parentSpanId === undefined || !ids.has(x.parentSpanId));
    assert.deepEqual(roots.map((x) => x.name), ['svc.intake'], `${name}: roots`);
  }
  assert.equal(new Set(Object.values(traces)).size, Object.keys(traces).length, 'one trace per request');
});

test('an incoming traceparent is honoured: its trace id is the request\'s, its span is the parent of svc.intake', () => {
  assert.equal(traces.execute, INCOMING_TRACE);
  const intake = spansOf('execute').find((x) => x.name === 'svc.intake')!;
  assert.equal(intake.parentSpanId, INCOMING_SPAN);
});

test('a byte-object execute nests plan, policy, execute, transform, manifest write and ledger appends under the request', () => {
  const spans = spansOf('execute');
  for (const n of ['svc.intake', 'svc.classify', 'svc.plan', 'svc.policy.evaluate', 'svc.execute', 'svc.transform', 'svc.manifest.write', 'svc.ledger.append']) assert.ok(namesOf('execute').has(n), `execute lacks ${n}`);
  const byId = new Map(spans.map((x) => [x.spanId, x]));
  const parentName = (n: string) => byId.get(spans.find((x) => x.name === n)!.parentSpanId!)?.name;
  assert.equal(parentName('svc.transform'), 'svc.execute');
  assert.equal(parentName('svc.manifest.write'), 'svc.execute');
  assert.equal(parentName('svc.policy.evaluate'), 'svc.plan');
  assert.equal(parentName('svc.classify'), 'svc.plan');
  const execute = spans.find((x) => x.name === 'svc.execute')!;
  assert.equal(execute.attributes.namespace, 's3');
  assert.match(String(execute.attributes.manifest_id), /^mf_/);
  assert.match(String(execute.attributes.policy_bundle_id), /./);
  assert.match(String(execute.attributes.tenant_hash), /^[0-9a-f]{16}$/);
  assert.equal(execute.attributes.contract, 'exact_bytes');
});

test('object put and get carry the adapter; a get rehydrates and verifies', () => {
  assert.ok(namesOf('put').has('svc.execute'));
  for (const x of spansOf('put')) assert.equal(x.attributes.adapter, 's3', `${x.name} of put lacks adapter`);
  assert.ok(namesOf('get').has('svc.rehydrate'));
  const verify = spansOf('get').find((x) => x.name === 'svc.verify');
  assert.equal(verify?.attributes.verifier_result, 'passed');
});

test('an AI chat nests classify, plan, policy, cache lookups, context compilation, route, verify, manifest write and ledger under the request', () => {
  for (const n of ['svc.classify', 'svc.plan', 'svc.policy.evaluate', 'svc.cache.lookup', 'svc.ai.context_compile', 'svc.ai.route', 'svc.verify', 'svc.manifest.write', 'svc.ledger.append']) assert.ok(namesOf('chat').has(n), `chat lacks ${n}`);
  for (const x of spansOf('chat').filter((y) => y.name === 'svc.cache.lookup')) assert.match(String(x.attributes.cache_result), /^(hit|miss|stale)$/);
  assert.equal(spansOf('chat').find((x) => x.name === 'svc.verify')?.attributes.verifier_result, 'passed');
  assert.equal(spansOf('chat').find((x) => x.name === 'svc.ai.route')?.attributes.model_route, 'mock/m-small');
  for (const x of spansOf('chat').filter((y) => y.name !== 'svc.intake')) assert.equal(x.attributes.adapter, 'openai');
  for (const n of ['svc.ai.route', 'svc.verify', 'svc.manifest.write']) assert.ok(namesOf('embeddings').has(n), `embeddings lacks ${n}`);
});

test('scheduler planning is an svc.plan span (action scheduler.plan, the job mode) under the request', () => {
  const spans = spansOf('scheduler');
  const planning = spans.find((x) => x.name === 'svc.plan');
  assert.ok(planning, 'scheduler submit lacks svc.plan');
  assert.equal(planning.attributes.action, 'scheduler.plan');
  assert.equal(planning.attributes.mode, 'enforce');
  assert.equal(spans.find((x) => x.spanId === planning.parentSpanId)?.name, 'svc.intake');
});

test('direct cache lookups are svc.cache.lookup spans with cache_result', () => {
  assert.equal(spansOf('exact_lookup').find((x) => x.name === 'svc.cache.lookup')?.attributes.cache_result, 'miss');
  assert.equal(spansOf('semantic_lookup').find((x) => x.name === 'svc.cache.lookup')?.attributes.cache_result, 'miss');
});

test('all 13 spec span names are emitted, with the spec\'s attribute names only', () => {
  const all = receiver.spans();
  assert.deepEqual(new Set(all.map((x) => x.name)), new Set(SPAN_NAMES));
  const allowed = new Set(['work_unit_id', 'manifest_id', 'tenant_hash', 'namespace', 'contract', 'policy_bundle_id', 'mode', 'adapter', 'action', 'cache_result', 'model_route', 'verifier_result', 'http_status']);
  for (const x of all) for (const k of Object.keys(x.attributes)) assert.ok(allowed.has(k), `${x.name} has attribute ${k}`);
});

test('no prompt, payload, object key or tenant name reaches a span', () => {
  const raw = receiver.bodies.join('\n');
  for (const marker of [PROMPT_MARKER, PAYLOAD_MARKER, KEY_MARKER, b64(PAYLOAD_MARKER).slice(0, 12), '"acme"']) assert.equal(raw.includes(marker), false, `${marker} found in exported spans`);
});

test('the trace id is the same in X-SVC-Trace-ID, the ledger and the manifest', async () => {
  const events = ((await (await s.call('POST', '/v1/ledger/query', { body: { tenant: 'acme', limit: 1000 } })).json()) as { events: Array<{ type: string; trace_id: string; manifest_id: string | null }> }).events;
  const written = events.filter((e) => e.trace_id === INCOMING_TRACE);
  assert.deepEqual(new Set(written.map((e) => e.type)).has('manifest.written'), true);
  const manifestId = written.find((e) => e.type === 'manifest.written')!.manifest_id!;
  const manifest = (await (await s.call('GET', `/v1/manifests/${manifestId}`)).json()) as { trace_id: string };
  assert.equal(manifest.trace_id, INCOMING_TRACE);
  const ledgerSpans = spansOf('execute').filter((x) => x.name === 'svc.ledger.append');
  assert.ok(ledgerSpans.length >= 2);
});
