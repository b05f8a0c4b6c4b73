import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import { computeManifestSummary, mergeById } from './compute-manifest-view.ts';
import { redactedRow } from './manifest.ts';

function manifest(overrides: Partial<AiComputeManifest> = {}): AiComputeManifest {
  return {
    manifest_id: 'mf_01jbbbbbbbbbbbbbbbbbbbbbbb',
    work_unit_id: 'wu_01jbbbbbbbbbbbbbbbbbbbbbbb',
    plan_id: 'pl_01jbbbbbbbbbbbbbbbbbbbbbbb',
    tenant: 'acme',
    kind: 'ai_chat_completion',
    contract: 'semantic',
    mode: 'enforce',
    policy_bundle_id: 'pb_x',
    trace_id: 't'.repeat(32),
    actor: 'a',
    status: 'completed',
    route: 'mock/small',
    requested_model: 'auto',
    cache: 'semantic_hit',
    cache_key: null,
    stream: { requested: false, mode: null },
    verifier: { name: 'chat_completion@1', passed: true, failures: [] },
    result: { fallback_used: false, fallback_reason: null, error_code: null, output_sha256: 'f'.repeat(64) },
    tokens: { prompt: 0, completion: 0, avoided: 10, removed_by_context_compile: 0, context_before: null, context_after: null },
    routing: { task_class: null, size_class: 'small', baseline_size_class: 'large', large_model_calls: 0, large_model_calls_avoided: 1, switched_by: [] },
    rollout: null,
    estimated_cost: null,
    latency_ms: { total: 1, upstream: null, overhead: 1 },
    created_at: '2026-11-24T12:00:00.000Z',
    ...overrides,
  };
}

test('a compute manifest lists with its cache result, verifier outcome, zero bytes and state active', () => {
  const s = computeManifestSummary(manifest(), 'prompt://x');
  assert.deepEqual([s.kind, s.cache_result, s.verifier_status, s.state, s.bytes_in, s.bytes_stored, s.logical_ref], ['ai_chat_completion', 'semantic_hit', 'passed', 'active', 0, 0, 'prompt://x']);
  assert.equal(computeManifestSummary(manifest({ verifier: { name: 'x@1', passed: false, failures: ['x@1'] } }), null).verifier_status, 'failed');
  assert.equal(computeManifestSummary(manifest({ verifier: { name: null, passed: null, failures: [] } }), null).verifier_status, 'unverified');
  assert.equal(redactedRow(s).cache_result, 'semantic_hit');
});

test('two id-sorted pages merge into one page in id order, either direction, cut at the limit', () => {
  const a = [{ manifest_id: 'mf_1' }, { manifest_id: 'mf_4' }];
  const b = [{ manifest_id: 'mf_2' }, { manifest_id: 'mf_3' }, { manifest_id: 'mf_5' }];
  assert.deepEqual(mergeById(a, b, 3).map((m) => m.manifest_id), ['mf_1', 'mf_2', 'mf_3']);
  assert.deepEqual(mergeById([...a].reverse(), [...b].reverse(), 2, true).map((m) => m.manifest_id), ['mf_5', 'mf_4']);
});
