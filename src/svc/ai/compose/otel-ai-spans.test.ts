import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { createTracing } from '../../observability/tracing.ts';
import { otelAiSpans } from './otel-ai-spans.ts';

function collectingProcessor(spans: ReadableSpan[]): SpanProcessor {
  return { onStart() {}, onEnd: (span) => void spans.push(span), forceFlush: async () => {}, shutdown: async () => {} };
}

test('AI spans are recorded as children of the request when a span processor consumes them', async () => {
  const ended: ReadableSpan[] = [];
  const tracing = createTracing({}, [collectingProcessor(ended)]);
  assert.equal(tracing.exporting, true);
  const request = tracing.beginRequest(undefined);
  assert.equal(await request.enter(() => otelAiSpans(tracing.exporting).run('svc.ai.route', { work_unit_id: 'wu_x' }, async () => 7)), 7);
  request.end(200);
  assert.deepEqual(ended.map((s) => s.name), ['svc.ai.route', 'svc.intake']);
  assert.equal(ended[0]!.parentSpanContext?.spanId, ended[1]!.spanContext().spanId);
});

test('without a span processor no span is created, and the work still runs', async () => {
  const tracing = createTracing({});
  assert.equal(tracing.exporting, false);
  const request = tracing.beginRequest(undefined);
  assert.equal(request.span, undefined);
  assert.equal(await request.enter(() => otelAiSpans(tracing.exporting).run('svc.ai.route', {}, async () => 'done')), 'done');
  assert.match(request.traceId, /^[0-9a-f]{32}$/);
});
