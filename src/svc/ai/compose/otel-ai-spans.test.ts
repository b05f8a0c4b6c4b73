import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { createTracing } from '../../observability/tracing.ts';
import { otelAiSpans } from './otel-ai-spans.ts';

function collectingProcessor(names: string[]): SpanProcessor {
  return {
    onStart() {},
    onEnd(span) {
      names.push(span.name);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
}

test('AI spans are recorded when a span processor consumes them', async () => {
  const names: string[] = [];
  const tracing = createTracing({}, [collectingProcessor(names)]);
  assert.equal(tracing.exporting, true);
  const spans = otelAiSpans(tracing.tracer, tracing.exporting);
  assert.equal(await spans.run('svc.ai.route', { work_unit_id: 'wu_x' }, async () => 7), 7);
  assert.deepEqual(names, ['svc.ai.route']);
});

test('without a span processor no span is created, and the work still runs', async () => {
  const tracing = createTracing({});
  assert.equal(tracing.exporting, false);
  const spans = otelAiSpans(tracing.tracer, tracing.exporting);
  let started = 0;
  const counting = new Proxy(tracing.tracer, {
    get(target, prop) {
      if (prop === 'startActiveSpan' || prop === 'startSpan') started++;
      return Reflect.get(target, prop, target) as unknown;
    },
  });
  assert.equal(await otelAiSpans(counting, tracing.exporting).run('svc.ai.route', {}, async () => 'done'), 'done');
  assert.equal(await spans.run('svc.ai.route', {}, async () => 'done'), 'done');
  assert.equal(started, 0);
});
