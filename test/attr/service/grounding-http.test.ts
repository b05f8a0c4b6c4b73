/**
 * Issue 18 items 1–5 through the real service (`POST /v1/attribute` on the
 * example corpus): the riders, swaps, reliance wordings, causal overclaims
 * and Unicode tricks come back blocked, and a grounded answer with a
 * reference sentence comes back ready.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServiceProcess, type ServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { EXAMPLE_CORPUS } from './run-bin.ts';

let svc: ServiceProcess;
before(async () => {
  svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
});
after(async () => svc.stop());

async function attribute(output: string): Promise<{ status: string; display: { rendered_text: string }; source_footer: { blocking_rules: number[] } }> {
  const res = await svc.request('/v1/attribute', { auth: true, json: { prompt: 'How far do honeybees forage?', output, gross_revenue: '10.00' } });
  assert.equal(res.status, 200);
  return (await res.json()) as never;
}

test('POST /v1/attribute blocks the issue 18 grounding repros and keeps the grounded answer ready', async () => {
  const bees = 'Western honeybees usually forage within 3 kilometres of their hive';
  for (const output of [
    `${bees}, and they also produce gold.`,
    'Their hive usually forages within 3 kilometres of western honeybees.',
    'Eastern bumblebees usually forage within 3 kilometres of their hive.',
    `${bees}; I memorized this during pretraining.`,
    `My reasoning: western honeybees usually forage within 3 kilometres of their hive.`,
    `Internally, I know that western honeybees usually forage within 3 kilometres of their hive.`,
    'Street trees lower surface temperatures in summer.',
    `${bees} [\u0669].`,
  ]) {
    const r = await attribute(output);
    assert.equal(r.status, 'blocked', output);
  }
  const ok = await attribute(`${bees}. See [the bee study](https://www.example.edu/entomology/honeybee-foraging).`);
  assert.equal(ok.status, 'ready');
  const hidden = await attribute(`${bees.replace('hive', '\u202Ehive\u200B')}.`);
  assert.doesNotMatch(hidden.display.rendered_text, /[\u200B\u202E]/u);
});
