import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { ByteManifestRow } from '../store/repositories/report-rows.ts';
import { estimateConstants } from './estimate-constants.ts';
import { buildRecommendations } from './recommendations.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;

function manifest(id: string, ref: string, chunks: string[], o: { ageDays?: number; reused?: number; verifier?: string } = {}): ByteManifestRow & { chunk_ids: string[] } {
  return {
    id,
    tenant: 'acme',
    logical_ref: `s3://${ref}`,
    contract: 'exact_bytes',
    mode: 'enforce',
    state: 'active',
    bytes_in: chunks.length * 1000,
    bytes_stored: chunks.length * 500,
    chunk_count: chunks.length,
    verifier_status: o.verifier ?? 'unverified',
    created_at: new Date(NOW.getTime() - (o.ageDays ?? 1) * DAY).toISOString(),
    stats: { chunks_new: chunks.length - (o.reused ?? 0), chunks_reused: o.reused ?? 0, bytes_deduplicated: (o.reused ?? 0) * 1000, bytes_saved_by_compression: 0, would_store_bytes: 0, detected_format: null },
    chunk_ids: chunks,
  };
}

function ai(id: string, route: string, before: number | null, removed: number): AiComputeManifest {
  return { manifest_id: id, route, tokens: { prompt: 100, completion: 10, avoided: 0, removed_by_context_compile: removed, context_before: before, context_after: before === null ? null : before - removed } } as AiComputeManifest;
}

const base = () => ({ now: NOW, lastReads: new Map<string, string>(), ai: [] as AiComputeManifest[], models: [] as string[], constants: estimateConstants(undefined) });

test('each of the six findings is raised by its rule, with evidence ids and a labelled estimate', () => {
  const manifests = [
    manifest('mf_01', 'data/train/a.bin', ['c1', 'c2', 'c3', 'c4', 'c5']),
    manifest('mf_02', 'backup/a.bin', ['c1', 'c2', 'c3', 'c4', 'c5'], { reused: 5 }),
    manifest('mf_03', 'data/train/b.bin', ['c1', 'c2', 'c6'], { reused: 2 }),
    manifest('mf_04', 'archive/old.pdf', ['c7'], { ageDays: 200 }),
    manifest('mf_05', 'logs/app.log', ['c8']),
  ];
  const recs = buildRecommendations({
    ...base(),
    manifests,
    ai: [ai('mf_a1', 'p/small', 1000, 400), ai('mf_a2', 'p/small', 1000, 10)],
    models: ['p/small', 'p/large'],
  });
  const by = Object.fromEntries(recs.map((r) => [r.finding, r]));
  assert.deepEqual(Object.keys(by).sort(), ['bloated_prompts', 'duplicate_datasets', 'repeated_training_samples', 'stale_documents', 'unused_logs', 'unused_model_variants']);
  assert.deepEqual(by.duplicate_datasets!.evidence.ids, ['mf_02']);
  assert.deepEqual(by.stale_documents!.evidence.ids, ['mf_04']);
  assert.deepEqual(by.unused_logs!.evidence.ids, ['mf_05']);
  assert.deepEqual(by.bloated_prompts!.evidence.ids, ['mf_a1']);
  assert.deepEqual(by.repeated_training_samples!.evidence.ids, ['mf_03']);
  assert.deepEqual(by.unused_model_variants!.evidence.ids, ['p/large']);
  for (const r of recs) {
    assert.equal(r.estimated_saving.estimate, true);
    assert.ok(r.estimated_saving.formula.length > 10);
    assert.ok(['high', 'medium', 'low'].includes(r.severity));
  }
  assert.equal(by.stale_documents!.estimated_saving.value, Number(((500 / 1e9) * 0.023 * 12).toPrecision(6)));
});

test('healthy data raises nothing: reads keep objects fresh, a rehydrated log is used, distinct chunks are not duplicates', () => {
  const manifests = [manifest('mf_10', 'docs/a.pdf', ['x1'], { ageDays: 200 }), manifest('mf_11', 'logs/app.log', ['x2'], { verifier: 'passed' }), manifest('mf_12', 'docs/b.pdf', ['x3'])];
  const recs = buildRecommendations({ ...base(), manifests, lastReads: new Map([['mf_10', new Date(NOW.getTime() - 5 * DAY).toISOString()]]), ai: [ai('mf_a3', 'p/small', 1000, 10)], models: ['p/small'] });
  assert.deepEqual(recs, []);
});
