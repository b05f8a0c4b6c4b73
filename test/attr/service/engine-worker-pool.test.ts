import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyDigest, encodeAttribution, InlineEngineRunner, summarizeAttribution, type AttributionRunner } from '../../../src/attr/service/attribution-runner.ts';
import { EngineWorkerPool } from '../../../src/attr/service/engine-worker-pool.ts';
import { createAttributionEngine, loadCorpus, type AttributeInput } from '../../../src/attr/engine/index.ts';
import { AttrError } from '../../../src/attr/errors.ts';
import { EXAMPLE_CORPUS } from './run-bin.ts';

const corpus = await loadCorpus(EXAMPLE_CORPUS);
const engine = createAttributionEngine(corpus);
const probe: AttributeInput = { prompt: 'probe', grossRevenue: '1.00', context: { eventId: 'evt_probe', requestId: 'req_probe', operator: 'test', createdAt: '2000-01-01T00:00:00.000Z' } };
const probeSha256 = bodyDigest(encodeAttribution(engine.attribute(probe)));

function input(i: number, extra: Partial<AttributeInput> = {}): AttributeInput {
  const sentence = corpus.sources[i % corpus.sources.length]!.chunks[0]!.text;
  return {
    prompt: `question ${i}`,
    // Supported text, unsupported text and the demonstration answer, so ready and blocked responses both cross the threads.
    ...(i % 3 === 0 ? { output: sentence } : i % 3 === 1 ? { output: `The moon is made of cheese number ${i}.` } : {}),
    grossRevenue: `${i}.50`,
    context: { eventId: `evt_${i}`, requestId: `req_${i}`, operator: 'test', createdAt: `2025-01-0${1 + (i % 9)}T00:00:00.000Z` },
    ...extra,
  };
}

async function outcome(runner: AttributionRunner, i: AttributeInput): Promise<{ summary: unknown; body: string } | { code: string; message: string }> {
  try {
    const r = await runner.attribute(i);
    return { summary: r.summary, body: (await r.body).toString('utf8') };
  } catch (err) {
    assert.ok(err instanceof AttrError, String(err));
    return { code: err.code, message: err.message };
  }
}

test('concurrent jobs through a two-worker pool give byte-for-byte the in-process engine results, refusals included', async () => {
  const pool = await EngineWorkerPool.start({ size: 2, corpus, footerSigning: undefined, probe, probeSha256 });
  try {
    const inline = new InlineEngineRunner(engine);
    const inputs = [...Array.from({ length: 18 }, (_, i) => input(i)), input(40, { grossRevenue: '-1.00' }), input(41, { grossRevenue: '1.0.0' })];
    const [pooled, reference] = await Promise.all([Promise.all(inputs.map((i) => outcome(pool, i))), Promise.all(inputs.map((i) => outcome(inline, i)))]);
    assert.deepEqual(pooled, reference);
    const statuses = new Set(pooled.map((o) => ('summary' in o ? (o.summary as { status: string }).status : o.code)));
    assert.deepEqual([...statuses].sort(), ['blocked', 'invalid_gross_revenue', 'negative_revenue', 'ready']);
    // The summary the audit record is built from is the response's own.
    for (const o of pooled) if ('body' in o) assert.deepEqual(o.summary, summarizeAttribution(JSON.parse(o.body)));
    assert.equal(pool.queued, 0);
  } finally {
    await pool.close();
  }
});

test('a pool whose workers answer the probe differently from the in-process engine does not start', async () => {
  await assert.rejects(
    EngineWorkerPool.start({ size: 2, corpus, footerSigning: undefined, probe, probeSha256: '0'.repeat(64) }),
    /answered the probe differently from the in-process engine/,
  );
});

test('a pool with a footer signing key it cannot load does not start', async () => {
  await assert.rejects(
    EngineWorkerPool.start({ size: 1, corpus, footerSigning: { keyId: 'k1', privateKeyPath: '/nonexistent/attr-footer-key.pem' }, probe, probeSha256 }),
    /engine worker failed to start: footer signing key .* cannot be read/,
  );
});

test('a worker that dies fails only its own job (internal) and is replaced; the pool keeps answering', async () => {
  const pool = await EngineWorkerPool.start({
    size: 2,
    corpus,
    footerSigning: undefined,
    probe,
    probeSha256,
    workerUrl: new URL('./fixtures/crash-on-prompt-worker.ts', import.meta.url),
  });
  try {
    const crash = outcome(pool, input(0, { prompt: 'crash the worker' }));
    const others = Promise.all([1, 2, 3, 4].map((i) => outcome(pool, input(i))));
    assert.deepEqual(await crash, { code: 'internal', message: 'internal error' });
    const inline = new InlineEngineRunner(engine);
    // A job queued behind the crashing one on the same worker fails too; every other one matches the engine.
    const survived = (await others).filter((o) => !('code' in o && o.code === 'internal'));
    assert.ok(survived.length >= 3, `at most one job shared the dead worker (${4 - survived.length} failed)`);
    const after = await Promise.all([5, 6, 7, 8].map((i) => outcome(pool, input(i))));
    assert.deepEqual(after, await Promise.all([5, 6, 7, 8].map((i) => outcome(inline, input(i)))));
    assert.equal(pool.problem(), undefined);
  } finally {
    await pool.close();
  }
});

test('a closed pool refuses new work with not_ready', async () => {
  const pool = await EngineWorkerPool.start({ size: 1, corpus, footerSigning: undefined, probe, probeSha256 });
  await pool.close();
  assert.deepEqual(await outcome(pool, input(1)), { code: 'not_ready', message: 'the service is not ready; see GET /readyz' });
});
