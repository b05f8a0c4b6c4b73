/**
 * What the client receives besides the answer: the response metadata
 * (headers, `svc` object), the `svc` object in a JSON body or as the last
 * stream chunk, the usage chunk of a stream, and a cached answer re-dressed
 * for this request (its own id, time and honest zero usage).
 */
import type { Usage } from '../schemas/openai-shapes.ts';
import type { AiResponseMeta } from './ai-result.ts';
import { type ApiProfile, chatProfile, embeddingProfile } from './api-profiles.ts';
import { isRecord, type Prepared } from './prepared-request.ts';
import type { RequestRun } from './request-run.ts';
import type { SseFrame } from '../streaming/sse-frames.ts';

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function responseMeta(run: RequestRun): AiResponseMeta {
  return {
    work_unit_id: run.work_unit_id,
    manifest_id: run.manifest_id,
    plan_id: run.plan_id,
    trace_id: run.traceId,
    tenant: run.tenant,
    contract: run.contract,
    mode: run.mode,
    policy_bundle_id: run.policyBundleId,
    cache: run.cache,
    route: run.servedRoute?.label ?? run.route?.label ?? null,
    fallback_used: run.fallbackUsed,
    fallback_reason: run.fallbackReason,
    verifier: run.verifier,
    tokens_avoided: run.tokensAvoided,
    output_sha256: run.outputSha256,
    semantic_operating_point: run.semanticOperatingPoint,
  };
}

function svcObject(run: RequestRun): Record<string, unknown> {
  const m = responseMeta(run);
  return {
    work_unit_id: m.work_unit_id,
    manifest_id: m.manifest_id,
    cache: m.cache,
    route: m.route,
    fallback_used: m.fallback_used,
    fallback_reason: m.fallback_reason,
    verifier: m.verifier,
    trace_id: m.trace_id,
    contract: m.contract,
    mode: m.mode,
    policy_bundle_id: m.policy_bundle_id,
    tokens_avoided: m.tokens_avoided,
    ...(m.semantic_operating_point ? { semantic_operating_point: m.semantic_operating_point } : {}),
  };
}

/** The JSON body, with the `svc` object when the client asked for it. */
export function withMetadata(p: Prepared, body: unknown): unknown {
  return p.wantsMetadata && isRecord(body) ? { ...body, svc: svcObject(p.run) } : body;
}

function chunkObject(profile: ApiProfile): string {
  return profile === chatProfile ? 'chat.completion.chunk' : 'text_completion';
}

/** The last chunk of a stream when metadata was asked for: no choices, only `svc`. */
export function metadataChunk(p: Prepared): Record<string, unknown> {
  return { id: `svc-${p.run.work_unit_id}`, object: chunkObject(p.profile), created: Math.floor(Date.now() / 1000), model: p.run.servedRoute?.model.id ?? p.request.model, choices: [], svc: svcObject(p.run) };
}

/** The usage chunk of a stream: the run's totals (all routes called), in the upstream's usage chunk when there was one. */
export function* usageFrames(p: Prepared, upstreamUsageChunk: Record<string, unknown> | undefined): Generator<SseFrame> {
  if (!p.includeUsage) return;
  const { run } = p;
  const usage: Usage = { prompt_tokens: run.promptTokens, completion_tokens: run.completionTokens, total_tokens: run.promptTokens + run.completionTokens };
  yield { data: { ...(upstreamUsageChunk ?? { object: chunkObject(p.profile), created: Math.floor(Date.now() / 1000) }), choices: [], usage } };
}

/**
 * A cached answer as served to this request. Honest usage: nothing was
 * processed by a model for this response.
 */
export function servedFromCache(p: Prepared, cached: unknown): { served: unknown; usage: Usage } {
  const { run, profile } = p;
  const usage = (profile === embeddingProfile ? { prompt_tokens: 0, total_tokens: 0 } : { ...ZERO_USAGE }) as Usage;
  const served = isRecord(cached) ? { ...cached, usage } : cached;
  if (isRecord(served) && profile !== embeddingProfile) {
    served.id = `${profile === chatProfile ? 'chatcmpl' : 'cmpl'}-${run.work_unit_id}`;
    served.created = Math.floor(Date.now() / 1000);
  }
  return { served, usage };
}
