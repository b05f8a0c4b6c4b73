/**
 * One AI request's records (work unit, plan, compute manifest) as the gateway
 * writes them through `store.aiRecords` (docs/decisions/141), with fresh ids.
 */
import { newId } from '../../src/core/ids.ts';
import type { AiComputeManifest } from '../../src/svc/ai/gateway/ports.ts';
import type { Plan } from '../../src/svc/plans/plan.ts';
import type { AiRecordSet } from '../../src/svc/store/repositories/ai-record-journal.ts';

export function recordSet(tenant: string): AiRecordSet {
  const now = new Date().toISOString();
  const wu = newId('wu');
  const pl = newId('pl');
  const mf = newId('mf');
  const plan: Plan = {
    plan_id: pl, work_unit_id: wu, tenant, kind: 'prompt_request', contract: 'exact_bytes', mode: 'enforce',
    actions: [{ type: 'model_route', required: true, risk: 'low', class: 'operation' }], denied_actions: [], obligations: [], risk: 'low',
    expected: { stored_bytes_reduction: 0, basis: 'none', sample_bytes: 0 }, policy_bundle_id: 'pb_x', policy_bundle_version: '1', policy_bundle_hash: 'h', trace_id: 't', created_at: now,
  };
  const manifest = {
    manifest_id: mf, work_unit_id: wu, plan_id: pl, tenant, kind: 'ai_chat_completion', contract: 'exact_bytes', mode: 'enforce', policy_bundle_id: 'pb_x', trace_id: 't',
    actor: 'tester', status: 'completed', route: 'mock/small', requested_model: 'small', cache: 'miss', cache_key: null, stream: { requested: false, mode: null },
    verifier: { name: 'chat_completion@1', passed: true, failures: [] }, result: { fallback_used: false, fallback_reason: null, error_code: null, output_sha256: 'ab'.repeat(32) },
    tokens: { prompt: 1, completion: 1, avoided: 0, removed_by_context_compile: 0, context_before: null, context_after: null },
    routing: { task_class: null, size_class: 'small', baseline_size_class: 'small', large_model_calls: 0, large_model_calls_avoided: 0, switched_by: [] },
    estimated_cost: null, latency_ms: { total: 1, upstream: 1, overhead: 0 }, created_at: now,
  } as unknown as AiComputeManifest;
  return {
    work_unit: {
      id: wu, tenant, kind: 'prompt_request', logical_ref: 'ai://chat/small', requested_contract: 'exact_bytes', state: 'executed', metadata: { surface: 'ai_gateway' },
      payload: { kind: 'none' }, payload_size: 0, payload_sha256: null, created_by: 'tester', trace_id: 't', last_plan_id: pl, manifest_id: mf, created_at: now, updated_at: now,
    },
    plan,
    plan_created_by: 'tester',
    manifest,
  };
}
