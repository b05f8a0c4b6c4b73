import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { activeTraceId, createTracing, inSpan, namespaceOf, openSpan, otlpTracesUrl, setRequestAttributes } from './tracing.ts';

function collecting(): { spans: ReadableSpan[]; processor: SpanProcessor } {
  const spans: ReadableSpan[] = [];
  return { spans, processor: { onStart() {}, onEnd: (s) => void spans.push(s), forceFlush: async () => {}, shutdown: async () => {} } };
}

test('spans opened anywhere below a request are its descendants, in one trace', async () => {
  const c = collecting();
  const tracing = createTracing({}, [c.processor]);
  const request = tracing.beginRequest(undefined);
  await request.enter(async () => {
    assert.equal(activeTraceId(), request.traceId);
    await inSpan('svc.plan', { work_unit_id: 'wu_1' }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      inSpan('svc.policy.evaluate', { action: 'dedupe' }, () => 1);
    });
    await inSpan('svc.execute', {}, () => inSpan('svc.transform', {}, async () => 2));
  });
  request.end(201);
  const byName = new Map(c.spans.map((s) => [s.name, s]));
  const id = (n: string) => byName.get(n)!.spanContext().spanId;
  const parent = (n: string) => byName.get(n)!.parentSpanContext?.spanId;
  assert.deepEqual(new Set(c.spans.map((s) => s.spanContext().traceId)), new Set([request.traceId]));
  assert.equal(parent('svc.intake'), undefined);
  assert.equal(parent('svc.plan'), id('svc.intake'));
  assert.equal(parent('svc.policy.evaluate'), id('svc.plan'));
  assert.equal(parent('svc.execute'), id('svc.intake'));
  assert.equal(parent('svc.transform'), id('svc.execute'));
});

test('an incoming traceparent becomes the trace id and the parent of svc.intake', () => {
  const c = collecting();
  const tracing = createTracing({}, [c.processor]);
  const request = tracing.beginRequest('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  assert.equal(request.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  request.end(200);
  assert.equal(c.spans[0]!.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(c.spans[0]!.parentSpanContext?.spanId, '00f067aa0ba902b7');
  assert.equal(c.spans[0]!.parentSpanContext?.isRemote, true);
});

test('an invalid traceparent starts a new trace', () => {
  const tracing = createTracing({}, [collecting().processor]);
  for (const bad of ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'garbage', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01']) {
    const r = tracing.beginRequest(bad);
    assert.match(r.traceId, /^[0-9a-f]{32}$/);
    assert.notEqual(r.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.notEqual(r.traceId, '0'.repeat(32));
  }
});

test('request attributes reach the root span and every later span; errors are recorded by code only', async () => {
  const c = collecting();
  const tracing = createTracing({}, [c.processor]);
  const request = tracing.beginRequest(undefined);
  await request.enter(async () => {
    setRequestAttributes({ tenant_hash: 'abc', adapter: 's3', ignored: undefined });
    await assert.rejects(inSpan('svc.execute', {}, async () => {
      throw Object.assign(new Error('secret user text'), { code: 'policy_denied' });
    }));
    const late = openSpan('svc.verify', { verifier_result: 'passed' });
    late?.end();
  });
  request.end(500);
  for (const s of c.spans) assert.equal(s.attributes.tenant_hash, 'abc');
  const execute = c.spans.find((s) => s.name === 'svc.execute')!;
  assert.equal(execute.attributes.adapter, 's3');
  assert.equal(execute.status.message, 'policy_denied');
  assert.equal('ignored' in c.spans.find((s) => s.name === 'svc.intake')!.attributes, false);
  assert.equal(c.spans.find((s) => s.name === 'svc.verify')!.parentSpanContext?.spanId, c.spans.find((s) => s.name === 'svc.intake')!.spanContext().spanId);
});

test('outside a request inSpan only runs its function', () => {
  assert.equal(inSpan('svc.plan', {}, () => 3), 3);
  assert.equal(activeTraceId(), undefined);
});

test('namespace is the scheme of a logical reference, never its path', () => {
  assert.equal(namespaceOf('s3://bucket/secret/key'), 's3');
  assert.equal(namespaceOf('Prompt://x'), 'prompt');
  assert.equal(namespaceOf('bucket/secret/key'), 'bucket');
  assert.equal(namespaceOf('odd:value/x'), undefined);
  assert.equal(namespaceOf(undefined), undefined);
});

test('the OTLP traces URL comes from the standard variables of the given env', () => {
  assert.equal(otlpTracesUrl({}), undefined);
  assert.equal(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:4318/' }), 'http://h:4318/v1/traces');
  assert.equal(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' }), 'http://t/x');
});
