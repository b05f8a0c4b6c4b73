/**
 * Storing a verified answer in the exact and semantic caches. The writes
 * start here and are awaited by `finishRun` together with the request's
 * records, so both join the same group commit. A failed write does not fail
 * the request (a cache entry is not an acknowledged record).
 */
import type { AiRequestContext } from './ports.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { Answer, Prepared } from './prepared-request.ts';

export function storeAnswer(d: GatewayDeps, ctx: AiRequestContext, p: Prepared, answer: Answer): void {
  const { run } = p;
  run.recordOutput(answer.value);
  if (run.largeModelCallsAvoided > 0) d.telemetry.count('svc_ai_large_model_calls_avoided_total', 1);
  d.telemetry.count('svc_ai_input_tokens_total', run.promptTokens);
  if (!answer.check.passed) return;
  // Only verified successes are stored; fallback answers passed their own verifier above.
  const spec = p.verification.specs[0]!;
  const key = run.cacheKey !== null && run.cache !== 'observe_exact_hit' ? run.cacheKey : null;
  const q = p.semanticQuery && run.mode === 'enforce' ? p.semanticQuery : undefined;
  if (key === null && !q) return;
  const writes: Array<Promise<unknown>> = [];
  if (key !== null) writes.push(d.exactCache.storeVerified(ctx, run.tenant, key, answer.value, spec, d.cacheTtlSeconds, 'gateway'));
  if (q) {
    writes.push(
      d.semanticCache.storeForTenant(run.tenant, {
        domain: q.domain,
        ...(q.query !== undefined ? { query: q.query } : {}),
        source_fingerprints: q.source_fingerprints,
        policy_id: q.policy_id,
        value: answer.value,
        verification: spec,
        ttl_seconds: d.cacheTtlSeconds,
      }),
    );
  }
  run.cacheWrites = Promise.all(writes).then(
    () => undefined,
    (err: unknown) => d.onCacheWriteError(err),
  );
}
