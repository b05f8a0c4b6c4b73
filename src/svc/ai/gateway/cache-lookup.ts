/**
 * Cache lookup: exact, then semantic (under the `semantic` contract, when
 * asked for and allowed). A hit is served only when the cached answer also
 * passes this request's own required verifiers; observe mode records a
 * would-be hit and goes on to the upstream.
 */
import type { Usage } from '../schemas/openai-shapes.ts';
import { DONE_FRAME, type SseFrame } from '../streaming/sse-frames.ts';
import type { AiResult } from './ai-result.ts';
import type { AnswerCheck } from './answer-verification.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { AiRequestContext } from './ports.ts';
import { isRecord, type Prepared } from './prepared-request.ts';
import { finishRun } from './record-commit.ts';
import { metadataChunk, responseMeta, servedFromCache, withMetadata } from './response-shaping.ts';
import { checkCached } from './verify-step.ts';

/** Exact, then semantic. Returns the served result on an enforced hit; observe mode only records would-be hits. */
export async function lookupCaches(d: GatewayDeps, ctx: AiRequestContext, p: Prepared): Promise<AiResult | undefined> {
  const { run } = p;
  if (run.cacheKey === null && !p.semanticQuery) {
    run.cache = 'bypass';
    return undefined;
  }
  const key = run.cacheKey;
  if (key !== null) {
    const exact = await d.spans.run('svc.cache.lookup', { work_unit_id: run.work_unit_id, action: 'exact_cache_lookup', mode: run.mode }, () => d.exactCache.lookupForTenant(ctx, run.tenant, key), (r) => ({ cache_result: r.hit ? 'hit' : 'miss' }));
    // A cached answer must also pass this request's own required verifiers.
    const exactCheck = exact.hit ? checkCached(d, p, exact.entry.value) : undefined;
    if (exact.hit && exactCheck?.passed) {
      d.telemetry.count('svc_cache_hits_total', 1, { cache: 'exact' });
      if (run.mode === 'enforce') return serveHit(d, ctx, p, exact.entry.value, 'exact_hit', exactCheck);
      run.cache = 'observe_exact_hit';
    } else {
      d.telemetry.count('svc_cache_misses_total', 1, { cache: 'exact' });
    }
  }
  if (p.semanticQuery && run.cache === 'miss') {
    const query = p.semanticQuery;
    const enforce = run.mode === 'enforce';
    const semantic = await d.spans.run(
      'svc.cache.lookup',
      { work_unit_id: run.work_unit_id, action: 'semantic_cache_lookup', mode: run.mode },
      () => d.semanticCache.lookupForTenant(ctx, run.tenant, query, { workUnitId: run.work_unit_id, recordAcceptance: enforce }),
      (r) => ({ cache_result: r.hit ? 'hit' : r.stale ? 'stale' : 'miss' }),
    );
    const semanticCheck = semantic.hit ? checkCached(d, p, semantic.value) : undefined;
    if (semantic.hit && semanticCheck?.passed) {
      d.telemetry.count('svc_cache_hits_total', 1, { cache: 'semantic' });
      run.semanticOperatingPoint = semantic.operating_point;
      if (enforce) return serveHit(d, ctx, p, semantic.value, 'semantic_hit', semanticCheck);
      run.cache = 'observe_semantic_hit';
    } else {
      d.telemetry.count('svc_cache_misses_total', 1, { cache: 'semantic' });
      if (!semantic.hit && semantic.stale) d.telemetry.count('svc_ai_semantic_cache_stale_total', 1);
    }
  }
  return undefined;
}

async function serveHit(d: GatewayDeps, ctx: AiRequestContext, p: Prepared, cached: unknown, status: 'exact_hit' | 'semantic_hit', check: AnswerCheck): Promise<AiResult> {
  const { run, profile } = p;
  run.cache = status;
  run.verifier = check.verifier;
  run.verifierPassed = true;
  run.servedRoute = run.route;
  const originalUsage = isRecord(cached) && isRecord(cached.usage) ? (cached.usage as Usage) : undefined;
  run.avoidedPromptTokens = originalUsage?.prompt_tokens ?? 0;
  run.avoidedCompletionTokens = originalUsage?.completion_tokens ?? 0;
  d.telemetry.count('svc_ai_model_calls_avoided_total', 1);
  d.telemetry.count('svc_ai_tokens_avoided_total', run.tokensAvoided);
  if (run.largeModelCallsAvoided > 0) d.telemetry.count('svc_ai_large_model_calls_avoided_total', 1);
  const { served, usage } = servedFromCache(p, cached);
  run.recordOutput(served);
  if (run.streamRequested) {
    const chunks = profile.toChunks(served, usage, p.includeUsage);
    async function* frames(): AsyncGenerator<SseFrame> {
      for (const c of chunks) yield { data: c };
      if (p.wantsMetadata) yield { data: metadataChunk(p) };
      await finishRun(d, ctx, run, p.begun, 'completed', null);
      yield DONE_FRAME;
    }
    return { kind: 'stream', frames: frames(), meta: responseMeta(run) };
  }
  await finishRun(d, ctx, run, p.begun, 'completed', null);
  return { kind: 'json', body: withMetadata(p, profile.present(served, p.request)), meta: responseMeta(run) };
}
