/**
 * Shared test fixtures: the example corpus engine, a request context, and a
 * "reseal" helper that recomputes every hash and rendering after a test has
 * edited a response, so a tamper test isolates the one rule it targets
 * instead of being caught by a hash mismatch first.
 */
import { loadCorpus, createAttributionEngine, type AttributionEngine, type AttributionResponse } from '../../../src/attr/engine/index.ts';
import { footerHash, rowHash } from '../../../src/attr/footer/footer-hashes.ts';
import { renderFooter } from '../../../src/attr/footer/render-footer.ts';
import { buildSummary } from '../../../src/attr/engine/assembly/build-response.ts';
import { EXAMPLE_CORPUS } from '../eval/run-eval.ts';

let cached: AttributionEngine | undefined;

export async function exampleEngine(): Promise<AttributionEngine> {
  cached ??= createAttributionEngine(await loadCorpus(EXAMPLE_CORPUS));
  return cached;
}

export function context(n = 1) {
  return { eventId: `evt_test_${n}`, requestId: `req_test_${n}`, operator: 'operator-a', createdAt: '2025-02-03T04:05:06Z' };
}

export async function attribute(output: string | undefined, grossRevenue = '10.00', n = 1): Promise<AttributionResponse> {
  const engine = await exampleEngine();
  return engine.attribute({ prompt: 'How far do honeybees forage?', ...(output === undefined ? {} : { output }), grossRevenue, context: context(n) });
}

export const READY_ANSWER =
  'Western honeybees usually forage within 3 kilometres of their hive [1]. A sourdough starter is a stable culture of wild yeasts and lactic acid bacteria [2].';

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Recomputes row hashes, footer hash, rendered footer, display text and summary after an edit. */
export function reseal(r: AttributionResponse): AttributionResponse {
  const footer = r.source_footer;
  footer.source_rows = footer.source_rows.map((row) => ({ ...row, row_hash: rowHash(row) }));
  footer.footer_hash = footerHash(footer);
  footer.rendered_text = renderFooter(footer);
  r.display.rendered_text = `${r.display.answer_text}${r.display.separator}${footer.rendered_text}`;
  r.summary = buildSummary(footer, r.event);
  return r;
}
