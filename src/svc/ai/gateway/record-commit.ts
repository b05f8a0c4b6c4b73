/**
 * Recording a request: the work unit and its plan are handed to the
 * recorder before the upstream call (`begin`); the compute manifest and the
 * ledger events when the request ends (`complete`). The result is handed
 * back only after the records — and the cache writes of the answer, started
 * in the same tick so they share the group commit — are durable
 * (docs/decisions/067).
 */
import type { PolicyEvaluator } from '../../policy/types.ts';
import type { SvcError } from '../../errors.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { AiPlan, AiRequestContext, AiWorkUnitStart } from './ports.ts';
import type { RequestRun } from './request-run.ts';

/** The start record of a planned request (work unit + persisted plan). */
export function workUnitStart(run: RequestRun, plan: AiPlan, namespace: string | null, keyRoute: string, bundle: ReturnType<PolicyEvaluator['activeBundle']>): AiWorkUnitStart {
  return {
    ...(run.stored ? { stored: true } : {}),
    work_unit_id: run.work_unit_id,
    manifest_id: run.manifest_id,
    tenant: run.tenant,
    namespace,
    kind: run.kind,
    logical_ref: run.stored?.logical_ref ?? `ai://${keyRoute}/${encodeURIComponent(run.requestedModel)}`,
    contract: run.contract,
    mode: run.mode,
    policy_bundle: bundle,
    trace_id: run.traceId,
    actor: run.actor,
    plan,
  };
}

/** The start record of a request that failed before it was planned. */
function minimalStart(run: RequestRun, bundle: ReturnType<PolicyEvaluator['activeBundle']>): AiWorkUnitStart {
  return {
    ...(run.stored ? { stored: true } : {}),
    work_unit_id: run.work_unit_id,
    manifest_id: run.manifest_id,
    tenant: run.tenant,
    namespace: null,
    kind: run.kind,
    logical_ref: run.stored?.logical_ref ?? `ai://${run.kind}/${encodeURIComponent(run.requestedModel)}`,
    contract: run.contract,
    mode: run.mode,
    policy_bundle: bundle,
    trace_id: run.traceId,
    actor: run.actor,
    plan: { plan_id: run.plan_id, contract: run.contract, mode: run.mode, actions: [], risk: 'low', route: null, expected: { stored_bytes_reduction: 0 }, denied_actions: [], rollout: run.rollout },
  };
}

/** Hands the plan to the recorder; the returned promise is awaited by `finishRun` (a failure surfaces there, never as "unhandled"). */
export function beginRun(d: GatewayDeps, ctx: AiRequestContext, start: AiWorkUnitStart): Promise<void> {
  const begun = d.recorder.begin(ctx, start);
  begun.catch(() => {});
  return begun;
}

/**
 * Commits the request's records (and awaits its cache writes, started in
 * the same tick so they share the commit). Callers hand the result to the
 * client only after this resolves.
 */
export async function finishRun(d: GatewayDeps, ctx: AiRequestContext, run: RequestRun, begun: Promise<void> | undefined, status: 'completed' | 'failed', errorCode: string | null): Promise<void> {
  if (run.finished) return;
  run.finished = true;
  // A verifier failure that reaches the client: no fallback, or the fallback failed too (critical alert).
  if (errorCode === 'verifier_failed') d.telemetry.count('svc_verifier_failures_without_fallback_total', 1);
  const overheadMs = Math.max(0, run.elapsedMs() - run.upstreamMs);
  d.telemetry.observeOverhead(overheadMs / 1000, { kind: run.kind, cache: run.cache });
  const manifest = run.toManifest(status, errorCode);
  const records = (async () => {
    if (begun) await begun;
    else await d.recorder.begin(ctx, minimalStart(run, d.policy.activeBundle()));
    await d.spans.run('svc.manifest.write', { work_unit_id: run.work_unit_id, manifest_id: run.manifest_id }, () => d.recorder.complete(ctx, manifest));
  })();
  await Promise.all([records, run.cacheWrites]);
}

/** Records a failed request; a recording failure must not hide the original error. */
export async function finishFailedSafely(d: GatewayDeps, ctx: AiRequestContext, run: RequestRun, begun: Promise<void> | undefined, error: SvcError): Promise<void> {
  try {
    await finishRun(d, ctx, run, begun, 'failed', error.code);
  } catch {
    // The original error is what the client needs; the recorder logs its own failures.
  }
}
